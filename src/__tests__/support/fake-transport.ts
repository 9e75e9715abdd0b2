/** A transport the test drives frame by frame, and frame builders. */
import type { IModelOffer } from '../../contracts/models';
import type { IAgentTransport, IHealthReport } from '../../contracts/transport';
import type { ITurnHandle, ITurnSink, TurnRequest } from '../../wire/turn';
import { decodeFrame } from '../../wire/frames';
import { type WireFrame } from '../../wire/frame-types';
import { panelStrings } from '../../contracts/translation';

export const trans = panelStrings();

/** A validated frame from its JSON object. */
export function frame(json: Record<string, unknown>): WireFrame {
  const decoded = decodeFrame(JSON.stringify(json));
  if (!decoded.ok) {
    throw new Error(`bad test frame: ${decoded.reason}`);
  }
  return decoded.frame;
}

export const chunk = (text: string, extra: Record<string, unknown> = {}) =>
  frame({ status: 'streaming', chunk: text, node: 'agent', ...extra });
export const complete = (outcome = 'complete') =>
  frame({ status: 'complete', outcome });

export interface IFakeTurn {
  request: TurnRequest;
  sink: ITurnSink;
  stops: number;
}

export class FakeTransport implements IAgentTransport {
  readonly label = 'fake://agent';
  readonly turns: IFakeTurn[] = [];
  health: () => Promise<IHealthReport> = async () => ({
    state: 'healthy',
    message: 'ready',
    agentName: 'Fake'
  });

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  get lastTurn(): IFakeTurn {
    return this.turns[this.turns.length - 1];
  }

  startTurn(request: TurnRequest, sink: ITurnSink): ITurnHandle {
    const turn: IFakeTurn = { request, sink, stops: 0 };
    this.turns.push(turn);
    return {
      stop: () => {
        turn.stops += 1;
      },
      done: Promise.resolve()
    };
  }

  checkHealth(): Promise<IHealthReport> {
    return this.health();
  }

  dispose(): void {
    this._isDisposed = true;
  }

  private _isDisposed = false;
}

/** A fake transport of an endpoint that offers models (docs/protocol.md §16.3). */
export class FakeModelsTransport extends FakeTransport {
  constructor(public offer: IModelOffer | Error) {
    super();
  }

  /** How many times it was asked. */
  asked = 0;

  async listModels(): Promise<IModelOffer> {
    this.asked += 1;
    if (this.offer instanceof Error) {
      throw this.offer;
    }
    // Each answer is an object of its own, as read from HTTP.
    return JSON.parse(JSON.stringify(this.offer));
  }
}

/** An offer of the built-in agent: `models` (usable unless a reason is given). */
export function offerOf(
  defaultModel: string | null,
  models: (string | [string, string])[],
  problems: string[] = []
): IModelOffer {
  return {
    choosable: true,
    defaultModel,
    models: models.map(model => {
      const [id, reason] = typeof model === 'string' ? [model, null] : model;
      const [provider, name] = id.split(':');
      return {
        id,
        provider,
        name,
        usable: reason === null,
        reason,
        vision: false,
        source: 'configured'
      };
    }),
    problems
  };
}
