/**
 * AG-UI over a chanx websocket (docs/agui.md §10): one socket to the
 * endpoint, a subscription to `agui:thread:<id>` per thread, `ag_ui_run`
 * with our own run id, `ag_ui_cancel` to stop. Events come back as
 * `ag_ui_event` frames; with broadcast each carries a per-run `seq` that
 * restarts at 1 on `RUN_STARTED`, which is how a replay after a reconnect
 * (or a join from another tab) is applied once, in order.
 */
import type { IDisposable } from '@lumino/disposable';
import { ChanxConnection, type SocketFactory } from './chanx';
import { parseEvent, stringField } from '../agui/events';
import { sinkOutput } from './frame-output';
import { chatInput, openInterrupts, resumeInput } from '../agui/request';
import { AguiThread } from '../agui/thread';
import { AguiRunMapper, CANCELLED_BY_USER } from '../agui/to-chunk-frames';
import type { IEndpointSettings } from '../contracts/settings';
import { decodeFrame } from '../wire/frames';
import type {
  IAgentTransport,
  IForeignRun,
  IHealthReport
} from '../contracts/transport';
import type { ITurnHandle, ITurnSink, TurnRequest } from '../wire/turn';

export interface IAguiWsOptions {
  /** The chanx route, `ws://…` or `wss://…`. */
  url: string;
  connectTimeoutMs: number;
  /** 0 disables the idle timeout. */
  idleTimeoutMs: number;
  /** How long Stop waits for the run to end before ending the turn here. */
  cancelGraceMs?: number;
  createSocket?: SocketFactory;
  backoffMs?: number[];
}

/** Out-of-order frames kept while waiting for a missing `seq`. */
const MAX_REORDER = 64;
const DEFAULT_CANCEL_GRACE_MS = 10000;

export class AguiWsTransport implements IAgentTransport {
  constructor(private readonly _options: IAguiWsOptions) {
    this._connection = new ChanxConnection(_options.url, {
      createSocket: _options.createSocket,
      backoffMs: _options.backoffMs,
      onProblem: message => console.warn(`Agent Panel: ${message}`)
    });
  }

  get label(): string {
    return this._options.url;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  startTurn(request: TurnRequest, sink: ITurnSink): ITurnHandle {
    const turn = new WsTurn(this._options, request, sink);
    this._channel(request.threadId).start(turn);
    return turn;
  }

  /**
   * Runs on `threadId` that this panel did not start (another tab's, or one
   * still going after a reload), each from its `RUN_STARTED`.
   */
  followThread(
    threadId: string,
    onRun: (run: IForeignRun) => ITurnSink | null
  ): IDisposable {
    return this._channel(threadId).follow(onRun);
  }

  /** Healthy when the socket opens; a chanx route has no name to report. */
  async checkHealth(): Promise<IHealthReport> {
    await this._connection.whenOpen(this._options.connectTimeoutMs);
    return { state: 'healthy', message: 'connected', agentName: null };
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    for (const channel of this._channels.values()) {
      channel.dispose();
    }
    this._channels.clear();
    this._connection.dispose();
  }

  private _channel(threadId: string): ThreadChannel {
    if (this._isDisposed) {
      throw new Error(`the AG-UI connection to ${this.label} is closed`);
    }
    let channel = this._channels.get(threadId);
    if (!channel) {
      channel = new ThreadChannel(this._connection, threadId);
      this._channels.set(threadId, channel);
    }
    return channel;
  }

  private readonly _connection: ChanxConnection;
  private readonly _channels = new Map<string, ThreadChannel>();
  private _isDisposed = false;
}

/** The run being applied on a thread: ours, a followed one, or one ignored. */
interface IActiveRun {
  runId: string | null;
  mapper: AguiRunMapper | null;
  /** Our turn, when the run is ours. */
  turn: WsTurn | null;
  /** The sink of a followed run. */
  sink: ITurnSink | null;
  lastSeq: number;
  /** Frames that came before the `seq` they follow. */
  pending: Map<number, Record<string, unknown>>;
  /** Its terminal event was applied. */
  ended: boolean;
}

const TERMINAL_TYPES = new Set(['RUN_FINISHED', 'RUN_ERROR']);

/** One thread's subscription: routes its events to the run they belong to. */
class ThreadChannel implements IDisposable {
  constructor(
    private readonly _connection: ChanxConnection,
    readonly threadId: string
  ) {
    this.topic = `agui:thread:${threadId}`;
    this._thread = new AguiThread(threadId);
  }

  readonly topic: string;

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  start(turn: WsTurn): void {
    if (this._turn && !this._turn.ended) {
      turn.fail(
        `a turn is already running on thread ${this.threadId}; wait for it to end`
      );
      return;
    }
    this._turn = turn;
    turn.attach(this);
    if (this._subscribed) {
      this._sendRun(turn);
    } else {
      this._subscribe();
    }
  }

  follow(onRun: (run: IForeignRun) => ITurnSink | null): IDisposable {
    this._followers.add(onRun);
    this._subscribe();
    return {
      isDisposed: false,
      dispose: () => {
        this._followers.delete(onRun);
      }
    };
  }

  /** Ask the server to stop `runId` (any tab may). */
  cancel(runId: string): boolean {
    return this._connection.send(this.topic, 'ag_ui_cancel', { runId });
  }

  /**
   * The turn is over: forget it, and leave the topic unless someone follows
   * it (the thread's memory stays for the next turn or a resume).
   */
  release(turn: WsTurn): void {
    if (this._turn === turn) {
      this._turn = null;
    }
    if (this._active?.turn === turn) {
      this._active.turn = null;
      this._active.mapper = null;
    }
    if (this._turn === null && this._followers.size === 0) {
      this._subscription?.dispose();
      this._subscription = null;
      this._subscribed = false;
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._turn?.fail(
      `the AG-UI connection to ${this._connection.url} was closed`
    );
    this._subscription?.dispose();
    this._followers.clear();
  }

  private _subscribe(): void {
    if (this._subscription) {
      return;
    }
    this._subscription = this._connection.subscribe(this.topic, {
      subscribed: () => this._onSubscribed(),
      error: message => this._onError(message),
      frame: frame => this._onFrame(frame),
      disconnected: reason => this._onDisconnected(reason)
    });
  }

  private _onSubscribed(): void {
    this._subscribed = true;
    const turn = this._turn;
    if (turn && !turn.runSent) {
      this._sendRun(turn);
    }
  }

  private _sendRun(turn: WsTurn): void {
    const input = turn.buildInput(this._thread);
    if (!this._connection.send(this.topic, 'ag_ui_run', input)) {
      // Closed in between: the next `subscribed` sends it.
      return;
    }
    turn.runSent = true;
  }

  private _onError(message: string): void {
    const turn = this._turn;
    if (!this._subscribed) {
      // Refused at subscription: nothing on this thread can work.
      this._subscription?.dispose();
      this._subscription = null;
      turn?.fail(`${this._connection.url} refused ${this.topic}: ${message}`);
      return;
    }
    turn?.diagnostic(`${this._connection.url}: ${message}`);
  }

  private _onDisconnected(reason: string): void {
    this._subscribed = false;
    const turn = this._turn;
    if (!turn) {
      return;
    }
    if (turn.runSent && this._active?.turn === turn && !this._broadcast) {
      // Without broadcast the server cancels a run when its socket closes.
      turn.fail(`${reason}; the server stops a run when its socket closes`);
      return;
    }
    turn.diagnostic(`${reason}; reconnecting to replay the run`);
  }

  private _onFrame(frame: Record<string, unknown>): void {
    if (frame.action !== 'ag_ui_event') {
      return;
    }
    const parsed = parseEvent(frame.payload);
    if (!parsed.ok) {
      this._turn?.diagnostic(`${this._connection.url}: ${parsed.reason}`);
      return;
    }
    const event = parsed.event;
    const seq = typeof frame.seq === 'number' ? frame.seq : null;
    if (seq === null) {
      this._onUnsequenced(event);
      return;
    }
    this._broadcast = true;
    if (event.type === 'RUN_STARTED') {
      this._onRunStarted(event, seq);
      return;
    }
    const active = this._active;
    if (this._replayOfEndedRun) {
      return;
    }
    if (!active || active.ended) {
      // A run whose RUN_STARTED is still on its way (a live event that
      // overtook the replay of a join): kept for that run.
      this._holdEarly(seq, event);
      return;
    }
    if (seq <= active.lastSeq) {
      // Already applied: a replay.
      return;
    }
    if (seq > active.lastSeq + 1) {
      active.pending.set(seq, event);
      if (active.pending.size > MAX_REORDER) {
        this._skipGap(active);
      }
      return;
    }
    this._applyInOrder(active, seq, event);
  }

  /** A seq-less event is outside any broadcast run (§10 rule 4–5). */
  private _onUnsequenced(event: Record<string, unknown>): void {
    const turn = this._turn;
    const active = this._active;
    if (active?.turn === turn && turn && !this._broadcast) {
      // A server without broadcast: our run's events carry no seq.
      this._apply(active, event);
      return;
    }
    if (event.type === 'RUN_STARTED' && turn && !this._broadcast) {
      this._beginRun(stringField(event, 'runId'), 0);
      this._apply(this._active!, event);
      return;
    }
    if (event.type === 'RUN_ERROR') {
      const message = stringField(event, 'message') || 'the run was refused';
      if (turn && !turn.started) {
        // Our ag_ui_run was refused (another run holds the thread).
        turn.fail(`${this._connection.url}: ${message}`);
      } else {
        // A refusal that is not about the run in flight: a notice only.
        turn?.diagnostic(`${this._connection.url}: ${message}`);
      }
    }
    // Initial state (a transcript snapshot): the panel keeps its own.
  }

  private _onRunStarted(event: Record<string, unknown>, seq: number): void {
    const runId = stringField(event, 'runId');
    const active = this._active;
    if (active && active.runId === runId) {
      // A replay of the run we are applying (dropped up to `lastSeq`), or
      // of one already over (dropped whole, up to the next run).
      this._replayOfEndedRun = active.ended;
      return;
    }
    this._replayOfEndedRun = false;
    const early = this._early;
    this._early = new Map();
    this._beginRun(runId, seq - 1);
    const started = this._active!;
    for (const [at, held] of early) {
      if (at > seq) {
        started.pending.set(at, held);
      }
    }
    this._applyInOrder(started, seq, event);
  }

  private _holdEarly(seq: number, event: Record<string, unknown>): void {
    this._early.set(seq, event);
    if (this._early.size > MAX_REORDER) {
      this._early.delete(Math.min(...this._early.keys()));
    }
  }

  /** Route a new run to our turn, to a follower, or to nobody. */
  private _beginRun(runId: string | null, lastSeq: number): void {
    this._active?.turn?.runOvertaken(runId);
    const turn = this._turn;
    const ours = turn !== null && turn.runId === runId;
    let sink: ITurnSink | null = null;
    if (!ours && runId !== null) {
      const foreign: IForeignRun = {
        runId,
        stop: () => this.cancel(runId)
      };
      for (const follower of this._followers) {
        sink = follower(foreign) ?? sink;
      }
    }
    const output = ours ? turn!.sink : sink;
    this._active = {
      runId,
      turn: ours ? turn : null,
      sink,
      mapper: output
        ? new AguiRunMapper(
            this._thread,
            sinkOutput(output, this._connection.url)
          )
        : null,
      lastSeq,
      pending: new Map(),
      ended: false
    };
    if (ours) {
      turn!.onStarted(this._active.mapper!);
    }
  }

  private _applyInOrder(
    active: IActiveRun,
    seq: number,
    event: Record<string, unknown>
  ): void {
    let next: Record<string, unknown> | undefined = event;
    let at = seq;
    while (next) {
      active.lastSeq = at;
      this._apply(active, next);
      at += 1;
      next = active.pending.get(at);
      active.pending.delete(at);
    }
  }

  /** Too much is missing: report the gap and go on from the next frame held. */
  private _skipGap(active: IActiveRun): void {
    const first = Math.min(...active.pending.keys());
    const message = `events ${active.lastSeq + 1}–${first - 1} of run ${active.runId} never arrived`;
    (active.turn ?? active.sink)?.diagnostic(message);
    const event = active.pending.get(first)!;
    active.pending.delete(first);
    this._applyInOrder(active, first, event);
  }

  private _apply(active: IActiveRun, event: Record<string, unknown>): void {
    if (active.ended) {
      return;
    }
    active.turn?.touch();
    active.mapper?.apply(event as { type: string });
    // A run nobody shows still ends, so the next one is recognised.
    const terminal = active.mapper
      ? active.mapper.terminal
      : TERMINAL_TYPES.has(String(event.type));
    if (!terminal) {
      return;
    }
    active.ended = true;
    active.mapper = null;
    if (active.turn) {
      active.turn.finish();
    } else {
      active.sink?.end();
    }
  }

  private readonly _thread: AguiThread;
  private readonly _followers = new Set<
    (run: IForeignRun) => ITurnSink | null
  >();
  private _subscription: IDisposable | null = null;
  private _subscribed = false;
  /** Whether this server sends `seq` (broadcast); learned from the first one. */
  private _broadcast = false;
  private _turn: WsTurn | null = null;
  private _active: IActiveRun | null = null;
  /** Seq'd events seen before their run's RUN_STARTED. */
  private _early = new Map<number, Record<string, unknown>>();
  private _replayOfEndedRun = false;
  private _isDisposed = false;
}

/** One turn of ours on a websocket thread. */
class WsTurn implements ITurnHandle {
  constructor(
    private readonly _options: IAguiWsOptions,
    private readonly _request: TurnRequest,
    readonly sink: ITurnSink
  ) {
    this.done = new Promise(resolve => (this._resolveDone = resolve));
    this._timer = setTimeout(
      () =>
        this.fail(
          `no run started on ${_options.url} within ${_options.connectTimeoutMs / 1000} s`
        ),
      _options.connectTimeoutMs
    );
  }

  readonly done: Promise<void>;
  /** The `ag_ui_run` frame went out. */
  runSent = false;
  /** Our `RUN_STARTED` arrived. */
  started = false;
  ended = false;
  runId: string | null = null;

  attach(channel: ThreadChannel): void {
    this._channel = channel;
  }

  buildInput(thread: AguiThread): unknown {
    const request = this._request;
    if (request.kind === 'chat') {
      const input = chatInput(
        request.threadId,
        request.message,
        request.context
      );
      this.runId = input.runId;
      return input;
    }
    const { input, note } = resumeInput(
      request.threadId,
      request.decisions,
      openInterrupts(thread.openInterrupts, request.reviews)
    );
    if (note) {
      this.diagnostic(`${this._options.url}: ${note}`);
    }
    this.runId = input.runId;
    return input;
  }

  onStarted(mapper: AguiRunMapper): void {
    this.started = true;
    this._mapper = mapper;
    if (this._stopRequested) {
      this._sendCancel();
    }
    this.touch();
  }

  /** An event of our run arrived: restart the idle timer. */
  touch(): void {
    clearTimeout(this._timer);
    const { idleTimeoutMs, url } = this._options;
    if (idleTimeoutMs > 0 && !this._stopRequested) {
      this._timer = setTimeout(
        () =>
          this.fail(
            `no event from ${url} for ${idleTimeoutMs / 1000} s (idle timeout)`
          ),
        idleTimeoutMs
      );
    }
  }

  stop(): void {
    if (this.ended || this._stopRequested) {
      return;
    }
    this._stopRequested = true;
    if (this.started) {
      this._sendCancel();
    }
    // Not started, or the server does not answer: end the turn here.
    clearTimeout(this._timer);
    this._graceTimer = setTimeout(() => {
      this._deliver({ status: 'cancelled', message: CANCELLED_BY_USER });
      this.finish();
    }, this._options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS);
  }

  /** Another run took the thread over before ours ended. */
  runOvertaken(runId: string | null): void {
    this.fail(`run ${runId} started on this thread before ours ended`);
  }

  diagnostic(message: string): void {
    if (!this.ended) {
      this.sink.diagnostic(message);
    }
  }

  /** End the turn because the transport failed. */
  fail(reason: string): void {
    if (!this.ended) {
      this._end(reason);
    }
  }

  /** Our run reached its terminal event. */
  finish(): void {
    if (!this.ended) {
      this._end(undefined);
    }
  }

  private _sendCancel(): void {
    this._mapper?.noteCancelRequested();
    if (this.runId !== null) {
      this._channel?.cancel(this.runId);
    }
  }

  private _deliver(frame: Record<string, unknown>): void {
    const decoded = decodeFrame(frame);
    if (decoded.ok) {
      this.sink.frame(decoded.frame);
    }
  }

  private _end(reason: string | undefined): void {
    this.ended = true;
    clearTimeout(this._timer);
    clearTimeout(this._graceTimer);
    if (!reason && this._mapper && !this._mapper.terminal) {
      this._mapper.endOfStream();
    }
    this._channel?.release(this);
    this.sink.end(reason);
    this._resolveDone();
  }

  private _channel: ThreadChannel | null = null;
  private _mapper: AguiRunMapper | null = null;
  private _stopRequested = false;
  private _timer: ReturnType<typeof setTimeout> | undefined;
  private _graceTimer: ReturnType<typeof setTimeout> | undefined;
  private _resolveDone: () => void = () => undefined;
}

/** `agui` endpoints whose URL is `ws://` or `wss://` use this transport. */
export function isWebSocketUrl(url: string): boolean {
  return /^wss?:\/\//i.test(url.trim());
}

export function aguiWsTransportFactory(): (
  endpoint: IEndpointSettings
) => AguiWsTransport {
  return endpoint =>
    new AguiWsTransport({
      url: endpoint.url.trim(),
      connectTimeoutMs: endpoint.connectTimeoutSeconds * 1000,
      idleTimeoutMs: endpoint.idleTimeoutSeconds * 1000
    });
}
