import { URLExt } from '@jupyterlab/coreutils';
import type { ServerConnection } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IEndpointSettings } from '../contracts/settings';
import type { IAgentTransport, IHealthReport } from '../contracts/transport';
import { chunkWireContext } from '../wire/attachments';
import { decodeFrame } from '../wire/frames';
import { isObject } from '../wire/json';
import type {
  ITurnHandle,
  ITurnSink,
  TurnRefusal,
  TurnRequest
} from '../wire/turn';
import { bundleOrDefault, CANCEL_GRACE_MS } from './defaults';
import { httpEndpoint } from './endpoint';
import { sinkOutput } from './frame-output';
import { excerpt, fetchHealth, readChunkWireHealth } from './http-answer';
import { SseTurn, type SseEndpoint } from './sse-turn';
import { type ChunkWireRequest, refusedTurn, TurnSet } from './turn-set';

export interface IHttpTransportOptions extends SseEndpoint {
  /** Absolute base URL of the chunk-wire API (`chat`, `resume`, … below it). */
  baseUrl: string;
  /** How long Stop waits for the server's `cancelled` frame before aborting. */
  cancelGraceMs?: number;
  trans?: TranslationBundle;
}

/**
 * The LangStage Jupyter HTTP convention (docs/protocol.md §6): `POST chat` /
 * `resume` answer with server-sent chunk-wire frames, `POST cancel` stops a
 * turn, `GET health` says whether an agent is loaded.
 */
export class ChunkWireHttpTransport implements IAgentTransport {
  constructor(private readonly _options: IHttpTransportOptions) {
    this._trans = bundleOrDefault(_options.trans);
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
      new ChunkWireTurn(this._options, this._trans, request, sink)
    );
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
      state: ready ? 'healthy' : 'needs_setup',
      message:
        health.message ?? (ready ? trans.__('ready') : trans.__('not ready')),
      agentName: health.agentName
    };
  }

  dispose(): void {
    this._turns.dispose();
  }

  private readonly _trans: TranslationBundle;
  private readonly _turns = new TurnSet<ChunkWireTurn>();
}

/** One POST of `chat` or `resume` and its frames; Stop POSTs `cancel`. */
class ChunkWireTurn implements ITurnHandle {
  constructor(
    private readonly _options: IHttpTransportOptions,
    trans: TranslationBundle,
    private readonly _request: ChunkWireRequest,
    sink: ITurnSink
  ) {
    const url = URLExt.join(_options.baseUrl, _request.kind);
    const out = sinkOutput(sink, url, trans);
    this._stream = new SseTurn(_options, {
      url,
      body: requestBody(_request),
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
      body: JSON.stringify({ thread_id: this._request.threadId })
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

function requestBody(request: ChunkWireRequest): unknown {
  return request.kind === 'chat'
    ? {
        message: request.message,
        thread_id: request.threadId,
        ...chunkWireContext(request.context)
      }
    : { thread_id: request.threadId, decisions: request.decisions };
}

/** A 409 `nothing_pending` (this project's server): the review was answered elsewhere. */
function refusalOf(status: number, body: string): TurnRefusal | undefined {
  if (status !== 409) {
    return undefined;
  }
  try {
    const answer: unknown = JSON.parse(body);
    return isObject(answer) && answer.reason === 'nothing_pending'
      ? 'nothing_pending'
      : undefined;
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
