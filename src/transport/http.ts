import { URLExt } from '@jupyterlab/coreutils';
import type { ServerConnection } from '@jupyterlab/services';
import type { IEndpointSettings } from '../contracts/settings';
import { decodeFrame } from '../wire/frames';
import { makeEndpointFetch, resolveEndpoint } from './endpoint';
import { IdleWatch } from './idle-watch';
import { readSse } from './sse';
import type { FetchLike } from './types';
import type { IAgentTransport, IHealthReport } from '../contracts/transport';
import type {
  ITurnHandle,
  ITurnSink,
  TurnRefusal,
  TurnRequest
} from '../wire/turn';

export interface IHttpTransportOptions {
  /** Absolute base URL of the chunk-wire API (`chat`, `resume`, … below it). */
  baseUrl: string;
  /** The fetch for this endpoint (credentials already decided). */
  fetch: FetchLike;
  connectTimeoutMs: number;
  /** 0 disables the idle timeout. */
  idleTimeoutMs: number;
  /** How long Stop waits for the server's `cancelled` frame before aborting. */
  cancelGraceMs?: number;
}

/**
 * The LangStage Jupyter HTTP convention (chunk-wire §7): `POST chat` /
 * `resume` answer with server-sent chunk-wire frames, `POST cancel` stops a
 * turn, `GET health` says whether an agent is loaded.
 */
export class ChunkWireHttpTransport implements IAgentTransport {
  constructor(private readonly _options: IHttpTransportOptions) {}

  get label(): string {
    return this._options.baseUrl;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  startTurn(request: TurnRequest, sink: ITurnSink): ITurnHandle {
    const turn = new HttpTurn(this._options, request, sink);
    this._turns.add(turn);
    void turn.done.then(() => this._turns.delete(turn));
    return turn;
  }

  async checkHealth(): Promise<IHealthReport> {
    const url = URLExt.join(this._options.baseUrl, 'health');
    const response = await this._options.fetch(url, { method: 'GET' });
    const body = await response.text();
    if (!response.ok) {
      throw new Error(describeHttpFailure(url, response, body));
    }
    let health: any;
    try {
      health = JSON.parse(body);
    } catch {
      throw new Error(`${url} did not answer with JSON: not a chunk-wire API`);
    }
    const ready = health?.ready === true;
    return {
      state: ready ? 'healthy' : 'needs_setup',
      message: String(health?.message ?? (ready ? 'ready' : 'not ready')),
      agentName:
        typeof health?.agent_name === 'string' ? health.agent_name : null
    };
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    for (const turn of this._turns) {
      turn.abort();
    }
    this._turns.clear();
  }

  private _isDisposed = false;
  private readonly _turns = new Set<HttpTurn>();
}

/** One POST and its event stream. */
class HttpTurn implements ITurnHandle {
  constructor(
    private readonly _options: IHttpTransportOptions,
    private readonly _request: TurnRequest,
    private readonly _sink: ITurnSink
  ) {
    this.done = this._run();
  }

  readonly done: Promise<void>;

  stop(): void {
    if (this._stopping || this._controller.signal.aborted) {
      return;
    }
    this._stopping = true;
    const url = URLExt.join(this._options.baseUrl, 'cancel');
    const grace = this._options.cancelGraceMs ?? 10000;
    void this._options
      .fetch(url, {
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
          this._graceTimer = setTimeout(() => this.abort(), grace);
        }
      })
      .catch(() => this.abort());
  }

  /** Stop reading at once; the stream ends with no terminal frame. */
  abort(): void {
    this._controller.abort();
  }

  private async _run(): Promise<void> {
    const { baseUrl, fetch, connectTimeoutMs } = this._options;
    const request = this._request;
    const url = URLExt.join(baseUrl, request.kind);
    const body =
      request.kind === 'chat'
        ? {
            message: request.message,
            thread_id: request.threadId,
            ...request.context
          }
        : { thread_id: request.threadId, decisions: request.decisions };
    let failure: string | undefined;
    const connectTimer = setTimeout(() => {
      failure = `no answer from ${url} within ${connectTimeoutMs / 1000} s`;
      this.abort();
    }, connectTimeoutMs);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'text/event-stream'
        },
        body: JSON.stringify(body),
        signal: this._controller.signal
      });
      clearTimeout(connectTimer);
      failure = await this._readResponse(url, response);
    } catch (error) {
      if (!this._controller.signal.aborted) {
        failure = `cannot reach ${url}: ${messageOf(error)}`;
      }
    } finally {
      clearTimeout(connectTimer);
      this._idle?.dispose();
      clearTimeout(this._graceTimer);
    }
    this._sink.end(failure ?? this._idleFailure, this._refusal);
  }

  /** Read the event stream; returns why it failed, if it did. */
  private async _readResponse(
    url: string,
    response: Response
  ): Promise<string | undefined> {
    if (!response.ok) {
      const body = await response.text();
      this._refusal = refusalOf(response, body);
      return describeHttpFailure(url, response, body);
    }
    const type = response.headers.get('Content-Type') ?? '';
    if (!type.includes('text/event-stream')) {
      const text = await response.text();
      return `${url} answered with ${type || 'no content type'}, not an event stream: ${excerpt(text)}`;
    }
    if (!response.body) {
      return `${url} answered with an empty body`;
    }
    const { idleTimeoutMs } = this._options;
    this._idle = new IdleWatch(idleTimeoutMs, () => {
      this._idleFailure = `no frame from ${url} for ${idleTimeoutMs / 1000} s (idle timeout)`;
      this.abort();
    });
    this._idle.note();
    try {
      await readSse(
        response.body,
        data => {
          this._idle?.note();
          const decoded = decodeFrame(data);
          if (decoded.ok) {
            this._sink.frame(decoded.frame);
          } else {
            this._sink.diagnostic(`${url}: ${decoded.reason}`);
          }
        },
        this._controller.signal,
        message => this._sink.diagnostic(`${url}: ${message}`)
      );
    } catch (error) {
      if (!this._controller.signal.aborted) {
        return `connection to ${url} lost: ${messageOf(error)}`;
      }
    }
    return undefined;
  }

  private readonly _controller = new AbortController();
  private _refusal: TurnRefusal | undefined;
  private _stopping = false;
  private _idleFailure: string | undefined;
  private _idle: IdleWatch | undefined;
  private _graceTimer: ReturnType<typeof setTimeout> | undefined;
}

/** A 409 `nothing_pending` (this project's server): the review was answered elsewhere. */
function refusalOf(response: Response, body: string): TurnRefusal | undefined {
  if (response.status !== 409) {
    return undefined;
  }
  try {
    return JSON.parse(body)?.reason === 'nothing_pending'
      ? 'nothing_pending'
      : undefined;
  } catch {
    return undefined;
  }
}

/** "HTTP 404 Not Found from <url>: <server message>" */
export function describeHttpFailure(
  url: string,
  response: Response,
  body: string
): string {
  let detail = excerpt(body);
  try {
    const json = JSON.parse(body);
    if (typeof json?.message === 'string' && json.message) {
      detail = json.message;
    }
  } catch {
    // not JSON: keep the text excerpt
  }
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  return `${status} from ${url}${detail ? `: ${detail}` : ''}`;
}

function excerpt(text: string): string {
  const flat = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Transports for `http` endpoints, resolved against the Jupyter server. */
export function httpTransportFactory(
  serverSettings: ServerConnection.ISettings
): (endpoint: IEndpointSettings) => ChunkWireHttpTransport {
  return endpoint => {
    const resolved = resolveEndpoint(endpoint.url, serverSettings.baseUrl);
    return new ChunkWireHttpTransport({
      baseUrl: resolved.url,
      fetch: makeEndpointFetch(resolved, serverSettings, endpoint.headers),
      connectTimeoutMs: endpoint.connectTimeoutSeconds * 1000,
      idleTimeoutMs: endpoint.idleTimeoutSeconds * 1000
    });
  };
}
