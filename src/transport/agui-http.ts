/**
 * AG-UI over HTTP + server-sent events (docs/agui.md §2.1, §8): `POST
 * <endpoint>` a `RunAgentInput`, read the event stream, map it onto chunk-wire
 * frames. `GET <endpoint>` is the health probe. Stop aborts the request.
 */
import type { ServerConnection } from '@jupyterlab/services';
import { parseEvent } from '../agui/events';
import { sinkOutput } from './frame-output';
import { chatInput, openInterrupts, resumeInput } from '../agui/request';
import { AguiThread } from '../agui/thread';
import { AguiRunMapper, CANCELLED_BY_USER } from '../agui/to-chunk-frames';
import type { IEndpointSettings } from '../contracts/settings';
import { decodeFrame } from '../wire/frames';
import { makeEndpointFetch, resolveEndpoint } from './endpoint';
import { describeHttpFailure } from './http';
import { IdleWatch } from './idle-watch';
import { readSse } from './sse';
import type { FetchLike } from './types';
import type { IAgentTransport, IHealthReport } from '../contracts/transport';
import type { ITurnHandle, ITurnSink, TurnRequest } from '../wire/turn';

export interface IAguiHttpOptions {
  /** The AG-UI endpoint: runs are POSTed to it, health is a GET of it. */
  url: string;
  fetch: FetchLike;
  connectTimeoutMs: number;
  /** 0 disables the idle timeout. */
  idleTimeoutMs: number;
  /**
   * How long to keep reading after the terminal event, to report what a
   * producer sends after it (quirk 5), before closing the request.
   */
  drainMs?: number;
}

const DEFAULT_DRAIN_MS = 2000;

export class AguiHttpTransport implements IAgentTransport {
  constructor(private readonly _options: IAguiHttpOptions) {}

  get label(): string {
    return this._options.url;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  startTurn(request: TurnRequest, sink: ITurnSink): ITurnHandle {
    const turn = new AguiHttpTurn(
      this._options,
      this._thread(request.threadId),
      request,
      sink
    );
    this._turns.add(turn);
    void turn.done.then(() => this._turns.delete(turn));
    return turn;
  }

  /** langstage-agui answers `{"status": "ok", "agent": {"name": …}}`. */
  async checkHealth(): Promise<IHealthReport> {
    const { url, fetch } = this._options;
    const response = await fetch(url, { method: 'GET' });
    const body = await response.text();
    if (!response.ok) {
      throw new Error(describeHttpFailure(url, response, body));
    }
    let health: any;
    try {
      health = JSON.parse(body);
    } catch {
      // Any other AG-UI server may answer GET with anything: it is up.
      return { state: 'healthy', message: 'reachable', agentName: null };
    }
    const agentName =
      typeof health?.agent?.name === 'string' ? health.agent.name : null;
    if (health?.status !== undefined && health.status !== 'ok') {
      return {
        state: 'needs_setup',
        message: `${url} reports status "${String(health.status)}"`,
        agentName
      };
    }
    return { state: 'healthy', message: agentName ?? 'ready', agentName };
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
    this._threads.clear();
  }

  /** Thread memory lives as long as the transport (one server process). */
  private _thread(threadId: string): AguiThread {
    let thread = this._threads.get(threadId);
    if (!thread) {
      thread = new AguiThread(threadId);
      this._threads.set(threadId, thread);
    }
    return thread;
  }

  private _isDisposed = false;
  private readonly _turns = new Set<AguiHttpTurn>();
  private readonly _threads = new Map<string, AguiThread>();
}

/** One POST and its event stream. */
class AguiHttpTurn implements ITurnHandle {
  constructor(
    private readonly _options: IAguiHttpOptions,
    private readonly _thread: AguiThread,
    private readonly _request: TurnRequest,
    private readonly _sink: ITurnSink
  ) {
    this._mapper = new AguiRunMapper(_thread, sinkOutput(_sink, _options.url));
    const { idleTimeoutMs, url } = _options;
    this._idle = new IdleWatch(idleTimeoutMs, () => {
      this._idleFailure = `no event from ${url} for ${idleTimeoutMs / 1000} s (idle timeout)`;
      this.abort();
    });
    this.done = this._run();
  }

  readonly done: Promise<void>;

  /** Stop: abort the request; the turn ends as cancelled. */
  stop(): void {
    if (this._controller.signal.aborted) {
      return;
    }
    this._stopped = true;
    this.abort();
  }

  abort(): void {
    this._controller.abort();
  }

  private async _run(): Promise<void> {
    const { url, fetch, connectTimeoutMs } = this._options;
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
        body: JSON.stringify(this._body()),
        signal: this._controller.signal
      });
      clearTimeout(connectTimer);
      failure = await this._readResponse(response);
    } catch (error) {
      if (!this._controller.signal.aborted) {
        failure = `cannot reach ${url}: ${messageOf(error)}`;
      }
    } finally {
      clearTimeout(connectTimer);
      this._idle.dispose();
      clearTimeout(this._drainTimer);
    }
    failure ??= this._idleFailure;
    if (this._stopped && !this._mapper.terminal) {
      this._deliver({ status: 'cancelled', message: CANCELLED_BY_USER });
    } else if (!failure) {
      this._mapper.endOfStream();
    }
    this._sink.end(failure);
  }

  private _body(): unknown {
    const request = this._request;
    if (request.kind === 'chat') {
      return chatInput(request.threadId, request.message, request.context);
    }
    const { input, note } = resumeInput(
      request.threadId,
      request.decisions,
      openInterrupts(this._thread.openInterrupts, request.reviews)
    );
    if (note) {
      this._sink.diagnostic(`${this._options.url}: ${note}`);
    }
    return input;
  }

  /** Read the event stream; returns why it failed, if it did. */
  private async _readResponse(response: Response): Promise<string | undefined> {
    const { url } = this._options;
    if (!response.ok) {
      return describeHttpFailure(url, response, await response.text());
    }
    const type = response.headers.get('Content-Type') ?? '';
    if (!type.includes('text/event-stream')) {
      return `${url} answered with ${type || 'no content type'}, not an AG-UI event stream`;
    }
    if (!response.body) {
      return `${url} answered with an empty body`;
    }
    this._idle.note();
    try {
      await readSse(
        response.body,
        data => this._onData(data),
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

  private _onData(data: string): void {
    this._idle.note();
    const parsed = parseEvent(data);
    if (!parsed.ok) {
      this._sink.diagnostic(`${this._options.url}: ${parsed.reason}`);
      return;
    }
    const wasTerminal = this._mapper.terminal;
    this._mapper.apply(parsed.event);
    if (!wasTerminal && this._mapper.terminal) {
      // Read on a little to report late events, then let the request go.
      this._idle.dispose();
      this._drainTimer = setTimeout(
        () => this.abort(),
        this._options.drainMs ?? DEFAULT_DRAIN_MS
      );
    }
  }

  private _deliver(frame: Record<string, unknown>): void {
    const decoded = decodeFrame(frame);
    if (decoded.ok) {
      this._sink.frame(decoded.frame);
    }
  }

  private readonly _mapper: AguiRunMapper;
  private readonly _controller = new AbortController();
  private _stopped = false;
  private _idleFailure: string | undefined;
  private readonly _idle: IdleWatch;
  private _drainTimer: ReturnType<typeof setTimeout> | undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Transports for `agui` endpoints with an `http(s)` URL. */
export function aguiHttpTransportFactory(
  serverSettings: ServerConnection.ISettings
): (endpoint: IEndpointSettings) => AguiHttpTransport {
  return endpoint => {
    const resolved = resolveEndpoint(endpoint.url, serverSettings.baseUrl);
    return new AguiHttpTransport({
      url: resolved.url,
      fetch: makeEndpointFetch(resolved, serverSettings, endpoint.headers),
      connectTimeoutMs: endpoint.connectTimeoutSeconds * 1000,
      idleTimeoutMs: endpoint.idleTimeoutSeconds * 1000
    });
  };
}
