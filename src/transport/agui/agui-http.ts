/**
 * AG-UI over HTTP + server-sent events (docs/protocol.md §8.2): `POST
 * <endpoint>` a `RunAgentInput`, read the event stream, map it onto chunk-wire
 * frames. `GET <endpoint>` is the health probe. Stop aborts the request.
 * The thread lives in the conversation: each turn starts from the memory
 * the request hands back and remembers the thread when its run finishes.
 */
import type { ServerConnection } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import { parseEvent } from '../../agui/events';
import { type IRunInput, runInput } from '../../agui/request';
import { AguiThread } from '../../agui/thread';
import { AguiRunMapper, cancelledByUser } from '../../agui/to-chunk-frames';
import type { IEndpointSettings } from '../../contracts/settings';
import type { IAgentTransport, IHealthReport } from '../../contracts/transport';
import { isObject } from '../../wire/json';
import type {
  HistoryMode,
  ITurnHandle,
  ITurnSink,
  TurnRequest
} from '../../wire/turn';
import { httpEndpoint, type IHttpEndpoint } from '../endpoint';
import { type ISourceOutput, sinkOutput } from '../frame-output';
import { fetchHealth, readAguiHealth } from '../http/http-answer';
import { SseTurn } from '../http/sse-turn';
import { TurnSet } from '../turn-set';
import { AguiBranching } from './branching';

/**
 * `url` is the AG-UI endpoint: runs are POSTed to it, health is a GET of it.
 * No `isJupyterRoute`: AG-UI sends images by the agent's declared
 * capabilities, not by where it is.
 */
export interface IAguiHttpOptions extends Omit<
  IHttpEndpoint,
  'isJupyterRoute'
> {
  /**
   * How long to keep reading after the terminal event, to report what a
   * producer sends after it (quirk 5), before closing the request.
   */
  drainMs?: number;
  /** What a run carries of the conversation (the endpoint's `history`). */
  history?: HistoryMode;
  trans?: TranslationBundle;
}

const DEFAULT_DRAIN_MS = 2000;

/** How a POST-only endpoint answers `GET` (the reference SDK servers do). */
const METHOD_NOT_ALLOWED = 405;

export class AguiHttpTransport
  extends AguiBranching
  implements IAgentTransport
{
  constructor(private readonly _options: IAguiHttpOptions) {
    super(_options.history, _options.trans);
  }

  get label(): string {
    return this._options.url;
  }

  get isDisposed(): boolean {
    return this._turns.isDisposed;
  }

  startTurn(request: TurnRequest, sink: ITurnSink): ITurnHandle {
    const thread = new AguiThread(request.threadId);
    thread.load(request.memory);
    return this._turns.add(
      new AguiHttpTurn(
        this._options,
        this._trans,
        thread,
        runInput(
          request,
          thread,
          this._options.history,
          this._offersTools,
          this._acceptsImages
        ),
        sink
      )
    );
  }

  /**
   * langstage-agui answers `{"status": "ok", "agent": {"name": …}}`; a
   * POST-only endpoint answers 405, which is reachable, and is not asked
   * again (docs/protocol.md §8.2).
   */
  async checkHealth(): Promise<IHealthReport> {
    const { url, fetch } = this._options;
    if (!this._postOnly) {
      const body = await fetchHealth(fetch, url, this._trans, [
        METHOD_NOT_ALLOWED
      ]);
      if (body !== null) {
        return this._readHealth(body);
      }
      this._postOnly = true;
    }
    return {
      state: 'healthy',
      message: this._trans.__('reachable (POST only)'),
      agentName: null
    };
  }

  private _readHealth(body: string): IHealthReport {
    const { url } = this._options;
    const trans = this._trans;
    const health = readAguiHealth(body);
    if (!health) {
      // Any other AG-UI server may answer GET with anything: it is up.
      return {
        state: 'healthy',
        message: trans.__('reachable'),
        agentName: null
      };
    }
    const { status, agentName, capabilities } = health;
    const tools = isObject(capabilities?.tools) ? capabilities.tools : {};
    // An agent that declares it takes no client tools is offered none.
    this._offersTools = tools.clientProvided !== false;
    // Images go as content parts only to an agent that declares it takes them.
    const multimodal = isObject(capabilities?.multimodal)
      ? capabilities.multimodal
      : {};
    this._acceptsImages =
      isObject(multimodal.input) && multimodal.input.image === true;
    if (status !== undefined && status !== 'ok') {
      return {
        state: 'needs_setup',
        message: trans.__('%1 reports status "%2"', url, String(status)),
        agentName
      };
    }
    return {
      state: 'healthy',
      message: agentName ?? trans.__('ready'),
      agentName
    };
  }

  dispose(): void {
    this._turns.dispose();
  }

  private readonly _turns = new TurnSet<AguiHttpTurn>();
  private _postOnly = false;
  private _offersTools = true;
  private _acceptsImages = false;
}

/** One POST and its event stream; after the terminal event it drains. */
class AguiHttpTurn implements ITurnHandle {
  constructor(
    private readonly _options: IAguiHttpOptions,
    trans: TranslationBundle,
    thread: AguiThread,
    { input, note }: IRunInput,
    sink: ITurnSink
  ) {
    const { url } = _options;
    this._out = sinkOutput(sink, url, trans);
    this._mapper = new AguiRunMapper(thread, this._out);
    if (note) {
      this._out.diagnostic(note);
    }
    this._stream = new SseTurn(_options, {
      url,
      body: input,
      trans,
      onData: data => this._onData(data),
      onProblem: this._out.diagnostic,
      idleFailure: seconds =>
        trans.__('no event from %1 for %2 s (idle timeout)', url, seconds),
      notAStream: type =>
        trans.__(
          '%1 answered with %2, not an AG-UI event stream',
          url,
          type || trans.__('no content type')
        )
    });
    this.done = this._stream.ended.then(({ failure }) => {
      if (this._stopped && !this._mapper.terminal) {
        sink.frame(cancelledByUser());
      } else if (!failure) {
        this._mapper.endOfStream();
      }
      sink.end(failure);
    });
  }

  readonly done: Promise<void>;

  /** Stop: abort the request; the turn ends as cancelled. */
  stop(): void {
    if (this._stream.aborted) {
      return;
    }
    this._stopped = true;
    this.abort();
  }

  abort(): void {
    this._stream.abort();
  }

  private _onData(data: string): void {
    const parsed = parseEvent(data);
    if (!parsed.ok) {
      this._out.diagnostic(parsed.problem);
      return;
    }
    const wasTerminal = this._mapper.terminal;
    this._mapper.apply(parsed.event);
    if (!wasTerminal && this._mapper.terminal) {
      // Read on a little to report late events, then let the request go.
      this._stream.stopIdleWatch();
      this._stream.abortAfter(this._options.drainMs ?? DEFAULT_DRAIN_MS);
    }
  }

  private readonly _out: ISourceOutput;
  private readonly _mapper: AguiRunMapper;
  private readonly _stream: SseTurn;
  private _stopped = false;
}

/** Transports for `agui` endpoints with an `http(s)` URL. */
export function aguiHttpTransportFactory(
  serverSettings: ServerConnection.ISettings,
  trans?: TranslationBundle
): (endpoint: IEndpointSettings) => AguiHttpTransport {
  return endpoint =>
    new AguiHttpTransport({
      ...httpEndpoint(endpoint, serverSettings),
      history: endpoint.history,
      trans
    });
}
