/** A transport the test drives frame by frame, and frame builders. */
import { nullTranslator } from '@jupyterlab/translation';
import type { IAgentTransport, IHealthReport } from '../contracts/transport';
import type { ITurnHandle, ITurnSink, TurnRequest } from '../wire/turn';
import { decodeFrame } from '../wire/frames';
import { type WireFrame } from '../wire/frame-types';

export const trans = nullTranslator.load('jupyterlab_agent_panel');

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
