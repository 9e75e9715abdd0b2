import { URLExt } from '@jupyterlab/coreutils';
import type { ServerConnection } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IEndpointSettings } from '../../contracts/settings';
import { DisposableDelegate, type IDisposable } from '@lumino/disposable';
import { type IModelOffer, NO_MODEL_CHOICE } from '../../contracts/models';
import type {
  IAgentTransport,
  IForeignRun,
  IHealthReport
} from '../../contracts/transport';
import { decodeFrame } from '../../wire/frames';
import { isObject, type JsonObject } from '../../wire/json';
import {
  chunkWireContext,
  forkKeys,
  resumeAnswers,
  type ITurnHandle,
  type ITurnSink,
  type TurnRefusal,
  type TurnRequest,
  turnRefusal
} from '../../wire/turn';
import { CANCEL_GRACE_MS } from '../defaults';
import { httpEndpoint } from '../endpoint';
import { sinkOutput } from '../frame-output';
import { excerpt, fetchHealth, readChunkWireHealth } from './http-answer';
import { readModelOffer } from './model-offer';
import { SseTurn, type SseEndpoint } from './sse-turn';
import { type ChunkWireRequest, refusedTurn, TurnSet } from '../turn-set';
import { panelStrings } from '../../contracts/translation';

export interface IHttpTransportOptions extends SseEndpoint {
  /** Absolute base URL of the chunk-wire API (`chat`, `resume`, … below it). */
  baseUrl: string;
  /** How long Stop waits for the server's `cancelled` frame before aborting. */
  cancelGraceMs?: number;
  /** A route of this Jupyter server: images attached go with their bytes (docs/protocol.md §16.7). */
  isJupyterRoute?: boolean;
  trans?: TranslationBundle;
}

/**
 * The LangStage Jupyter HTTP convention (docs/protocol.md §6): `POST chat` /
 * `resume` answer with server-sent chunk-wire frames, `POST cancel` stops a
 * turn, `GET health` says whether an agent is loaded; `POST join` streams a
 * run still going on a thread (an Agent Server deployment's, after a reload);
 * `GET models` lists the models a conversation may choose (docs/protocol.md §16.3).
 */
export class ChunkWireHttpTransport implements IAgentTransport {
  constructor(private readonly _options: IHttpTransportOptions) {
    this._trans = _options.trans ?? panelStrings();
  }

  get label(): string {
    return this._options.baseUrl;
  }

  get isDisposed(): boolean {
    return this._turns.isDisposed;
  }

  startTurn(request: TurnRequest, sink: ITurnSink): ITurnHandle {
    if (request.kind === 'tool_results') {
      return refusedTurn(
        sink,
        this._trans.__('%1 runs no client tools', this.label)
      );
    }
    return this._turns.add(
      new ChunkWireTurn(
        this._options,
        this._trans,
        { route: request.kind, threadId: request.threadId },
        requestBody(request, this._options.isJupyterRoute === true),
        sink
      )
    );
  }

  /**
   * Asks once whether a run is still going on `threadId`; when one is, it is
   * streamed from its start into `onRun`'s sink. An endpoint with no run in
   * flight, or no `join` route, says so and nothing shows (see
   * docs/protocol.md §15.4).
   */
  followThread(
    threadId: string,
    onRun: (run: IForeignRun) => ITurnSink | null,
    _memory?: () => JsonObject | undefined,
    onBusy?: () => void
  ): IDisposable {
    let sink: ITurnSink | null | undefined; // undefined: no frame came yet
    const adopt = (): ITurnSink | null => {
      if (sink === undefined) {
        // The chunk wire names no runs: the thread's one run in flight.
        sink = onRun({ runId: threadId, stop: () => turn.stop() });
        if (sink === null) {
          turn.abort();
        }
      }
      return sink;
    };
    const turn = new ChunkWireTurn(
      this._options,
      this._trans,
      { route: 'join', threadId },
      { thread_id: threadId },
      {
        frame: frame => adopt()?.frame(frame),
        diagnostic: message => sink?.diagnostic(message),
        // Before a frame, an end is the answer "no run" (204, 404), or
        // "another client's turn runs, which join cannot stream" (409 busy).
        end: (reason, refusal) => {
          if (sink === undefined && refusal === 'busy') {
            onBusy?.();
          }
          sink?.end(reason, refusal);
        }
      }
    );
    this._turns.add(turn);
    return new DisposableDelegate(() => turn.abort());
  }

  async checkHealth(): Promise<IHealthReport> {
    const trans = this._trans;
    const url = URLExt.join(this._options.baseUrl, 'health');
    const health = readChunkWireHealth(
      await fetchHealth(this._options.fetch, url, trans)
    );
    if (!health) {
      throw new Error(
        trans.__('%1 did not answer with JSON: not a chunk-wire API', url)
      );
    }
    const ready = health.ready === true;
    return {
      state: ready
        ? 'healthy'
        : health.unreachable
          ? 'unreachable'
          : 'needs_setup',
      message:
        health.message ?? (ready ? trans.__('ready') : trans.__('not ready')),
      agentName: health.agentName,
      ...(health.modelChoice
        ? { modelChoice: true, defaultModel: health.defaultModel }
        : {}),
      ...(health.prompts.length > 0 ? { prompts: health.prompts } : {})
    };
  }

  /** `GET models`; a 404 or an answer that is not JSON offers no choice. */
  async listModels(): Promise<IModelOffer> {
    const url = URLExt.join(this._options.baseUrl, 'models');
    const body = await fetchHealth(
      this._options.fetch,
      url,
      this._trans,
      [404]
    );
    return body === null
      ? NO_MODEL_CHOICE
      : readModelOffer(body, url, this._trans);
  }

  dispose(): void {
    this._turns.dispose();
  }

  private readonly _trans: TranslationBundle;
  private readonly _turns = new TurnSet<ChunkWireTurn>();
}

/** The route a turn POSTs to, and the thread Stop cancels. */
interface ITurnRoute {
  route: ChunkWireRequest['kind'] | 'join';
  threadId: string;
}

/** One POST of `chat`, `resume` or `join` and its frames; Stop POSTs `cancel`. */
class ChunkWireTurn implements ITurnHandle {
  constructor(
    private readonly _options: IHttpTransportOptions,
    trans: TranslationBundle,
    private readonly _route: ITurnRoute,
    body: unknown,
    sink: ITurnSink
  ) {
    const url = URLExt.join(_options.baseUrl, _route.route);
    const out = sinkOutput(sink, url, trans);
    this._stream = new SseTurn(_options, {
      url,
      body,
      trans,
      onData: data => {
        const decoded = decodeFrame(data);
        if (decoded.ok) {
          out.frame(decoded.frame);
        } else {
          out.diagnostic(decoded.problem);
        }
      },
      onProblem: out.diagnostic,
      idleFailure: seconds =>
        trans.__('no frame from %1 for %2 s (idle timeout)', url, seconds),
      notAStream: (type, body) =>
        trans.__(
          '%1 answered with %2, not an event stream: %3',
          url,
          type || trans.__('no content type'),
          excerpt(body)
        ),
      refusalOf
    });
    this.done = this._stream.ended.then(end =>
      sink.end(end.failure, end.refusal)
    );
  }

  readonly done: Promise<void>;

  stop(): void {
    if (this._stopping || this._stream.aborted) {
      return;
    }
    this._stopping = true;
    const { baseUrl, fetch } = this._options;
    void fetch(URLExt.join(baseUrl, 'cancel'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ thread_id: this._route.threadId })
    })
      .then(async response => {
        const body = response.ok ? await response.json() : null;
        // The server had no running turn (not started yet, or already over):
        // nothing will send `cancelled`, so stop reading now.
        if (body?.status !== 'success') {
          this.abort();
        } else {
          this._stream.abortAfter(
            this._options.cancelGraceMs ?? CANCEL_GRACE_MS
          );
        }
      })
      .catch(() => this.abort());
  }

  /** Stop reading at once; the stream ends with no terminal frame. */
  abort(): void {
    this._stream.abort();
  }

  private readonly _stream: SseTurn;
  private _stopping = false;
}

/** What a turn POSTs; image bytes only to this server's own routes (docs/protocol.md §16.7). */
function requestBody(
  request: ChunkWireRequest,
  toJupyterRoute: boolean
): unknown {
  const model = request.model === undefined ? {} : { model: request.model };
  return request.kind === 'chat'
    ? {
        message: request.message,
        thread_id: request.threadId,
        ...chunkWireContext(request.context, toJupyterRoute),
        ...model,
        ...forkKeys(request.fork)
      }
    : {
        thread_id: request.threadId,
        decisions: request.decisions,
        ...resumeAnswers(request.reviews),
        ...model,
        ...forkKeys(request.fork)
      };
}

/**
 * A 409 of this project's server the model acts on: `nothing_pending` or
 * `stale_review` (the review was answered elsewhere), `busy` (another
 * client's turn runs on the thread).
 */
function refusalOf(status: number, body: string): TurnRefusal | undefined {
  if (status !== 409) {
    return undefined;
  }
  try {
    const answer: unknown = JSON.parse(body);
    return isObject(answer) ? turnRefusal(answer.reason) : undefined;
  } catch {
    return undefined;
  }
}

/** Transports for `http` endpoints, resolved against the Jupyter server. */
export function httpTransportFactory(
  serverSettings: ServerConnection.ISettings,
  trans?: TranslationBundle
): (endpoint: IEndpointSettings) => ChunkWireHttpTransport {
  return endpoint => {
    const { url, ...http } = httpEndpoint(endpoint, serverSettings);
    return new ChunkWireHttpTransport({ baseUrl: url, ...http, trans });
  };
}
