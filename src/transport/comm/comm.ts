/**
 * The kernel comm transport (docs/protocol.md §7): chat with a graph served in the
 * notebook's kernel by `%load_ext jupyterlab_agent_panel` /
 * `jupyterlab_agent_panel.serve(graph)`. Same frames, same reducer as HTTP.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { type JSONObject, PromiseDelegate, UUID } from '@lumino/coreutils';
import { type ISignal, Signal } from '@lumino/signaling';
import { chunkWireContext } from '../../wire/attachments';
import { decodeFrame } from '../../wire/frames';
import { failure } from '../../wire/problem';
import { errorMessage } from '../../wire/json';
import {
  AgentChannel,
  ChannelError,
  COMM_PROTOCOL,
  type IChannelTurn,
  type IHello,
  type TurnMessage
} from './agent-channel';
import { bundleOrDefault, CANCEL_GRACE_MS } from '../defaults';
import { translated } from '../frame-output';
import { IdleWatch } from '../idle-watch';
import { type ChunkWireRequest, refusedTurn } from '../turn-set';
import {
  lastRestartOf,
  type BindingChange,
  type KernelBinding
} from './kernel-binding';
import type {
  IAgentTransport,
  IHealthReport,
  IThreadRef
} from '../../contracts/transport';
import {
  forkKeys,
  resumeAnswers,
  type ITurnHandle,
  type ITurnSink,
  type TurnRefusal,
  type TurnRequest,
  turnRefusal
} from '../../wire/turn';

/** Sent in the open data; keep in step with package.json (a test checks). */
export const CLIENT = 'jupyterlab-agent-panel@0.1.0';

export interface ICommTransportOptions {
  /** Which kernel to talk to; the transport owns (and disposes) it. */
  binding: KernelBinding;
  commTarget: string;
  /** How long to wait for the kernel's `hello` after opening the comm. */
  connectTimeoutMs: number;
  /** 0 disables the idle timeout. */
  idleTimeoutMs: number;
  /** How long Stop waits for the kernel's `cancelled` frame. */
  cancelGraceMs?: number;
  trans?: TranslationBundle;
}

export class KernelCommTransport implements IAgentTransport {
  constructor(options: ICommTransportOptions) {
    this._options = options;
    this._binding = options.binding;
    this._trans = bundleOrDefault(options.trans);
    this._binding.changed.connect(this._onBindingChanged, this);
  }

  /** "Untitled.ipynb · Python 3 (ipykernel)" */
  get label(): string {
    return this._binding.label;
  }

  /**
   * The notebook or kernel behind the label changed, the kernel restarted,
   * or what the kernel serves changed: health is worth checking again.
   */
  get labelChanged(): ISignal<this, void> {
    return this._labelChanged;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  startTurn(request: TurnRequest, sink: ITurnSink): ITurnHandle {
    if (request.kind === 'tool_results') {
      return refusedTurn(
        sink,
        this._trans.__('The kernel comm runs no client tools.')
      );
    }
    // The kernel keeps the thread: which one, for `threadMemory` later.
    const kernelId = this._binding.kernel?.id;
    const remembering: ITurnSink = kernelId
      ? {
          frame: frame => sink.frame(frame),
          diagnostic: message => sink.diagnostic(message),
          end: (failure, refusal) => {
            sink.remember?.({ kernelId });
            sink.end(failure, refusal);
          }
        }
      : sink;
    const turn = new CommTurn({
      request,
      sink: remembering,
      connect: () => this._connect(),
      idleTimeoutMs: this._options.idleTimeoutMs,
      cancelGraceMs: this._options.cancelGraceMs ?? CANCEL_GRACE_MS,
      trans: this._trans
    });
    this._turns.add(turn);
    void turn.done.then(() => {
      this._turns.delete(turn);
      this._disposeIdleRetired();
    });
    return turn;
  }

  /**
   * The kernel forgot the thread when the conversation's last turn went to
   * another kernel, or this kernel restarted since (as far as this page
   * saw: a restart while no page followed the kernel goes unseen).
   */
  async threadMemory(thread: IThreadRef): Promise<boolean | null> {
    const was = thread.memory?.kernelId;
    const now = this._binding.kernel?.id;
    if (typeof was !== 'string' || !now) {
      return null;
    }
    return was === now && lastRestartOf(now) <= thread.lastTurnAt;
  }

  async checkHealth(): Promise<IHealthReport> {
    this._healthChecks += 1;
    try {
      const hello = (await this._connect()).hello;
      return this._healthOf(hello!);
    } catch (error) {
      if (error instanceof ChannelError) {
        return {
          state: error.state,
          message: sentence(error.message),
          agentName: null
        };
      }
      throw error;
    } finally {
      this._healthChecks -= 1;
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._binding.changed.disconnect(this._onBindingChanged, this);
    this._channel?.dispose();
    this._channel = null;
    this._retired.forEach(channel => channel.dispose());
    this._retired.clear();
    // Turns still waiting for a channel end here too.
    const cause = this._trans.__(
      'The connection to the kernel of %1 was closed by the panel',
      this._binding.notebookName
    );
    this._turns.forEach(turn => turn.fail(cause));
    this._turns.clear();
    this._binding.dispose();
    Signal.clearData(this);
  }

  /** The open channel to the bound kernel, opening one when needed. */
  private _connect(): Promise<AgentChannel> {
    if (this._isDisposed) {
      return Promise.reject(
        new ChannelError(
          'unreachable',
          this._trans.__('The kernel connection was closed')
        )
      );
    }
    const problem = this._binding.problem;
    const kernel = this._binding.kernel;
    if (problem || !kernel) {
      return Promise.reject(
        new ChannelError(
          problem?.state ?? 'needs_setup',
          problem?.message ?? this._trans.__('No kernel is bound')
        )
      );
    }
    const current = this._channel;
    if (!current || current.isClosed || current.kernel !== kernel) {
      this._retire(current);
      this._channel = new AgentChannel({
        kernel,
        target: this._options.commTarget,
        client: CLIENT,
        where: this._binding.notebookName,
        connectTimeoutMs: this._options.connectTimeoutMs,
        trans: this._trans,
        onHello: this._onHello,
        onClosed: this._onChannelClosed
      });
    }
    const channel = this._channel!;
    return channel.opened.then(() => channel);
  }

  private _healthOf(hello: IHello): IHealthReport {
    if (hello.protocol !== COMM_PROTOCOL) {
      return {
        state: 'needs_setup',
        message: this._trans.__(
          'The kernel speaks agent_panel protocol %1, this panel speaks %2: install the same jupyterlab_agent_panel version in the kernel.',
          hello.protocol,
          COMM_PROTOCOL
        ),
        agentName: null
      };
    }
    return {
      state: hello.ready ? 'healthy' : 'needs_setup',
      message:
        hello.message ||
        (hello.ready ? this._trans.__('ready') : this._trans.__('not ready')),
      agentName: hello.agentName
    };
  }

  private _onBindingChanged(_: KernelBinding, change: BindingChange): void {
    const channel = this._channel;
    if (change === 'rebound') {
      if (channel && channel.kernel !== this._binding.kernel) {
        this._retire(channel);
        this._channel = null;
      } else if (channel) {
        // Same kernel (e.g. the notebook was renamed): keep the comm.
        channel.where = this._binding.notebookName;
      }
    } else if (channel && channel.kernel === this._binding.kernel) {
      // Restarted: the comm was cleared with the old process. Open it again
      // (a missing target is what health then reports).
      this._connect().catch(() => undefined);
    }
    this._labelChanged.emit();
  }

  /** A `hello` nobody is waiting for: the kernel now serves something else. */
  private readonly _onHello = (channel: AgentChannel): void => {
    if (channel === this._channel && this._healthChecks === 0) {
      this._labelChanged.emit();
    }
  };

  private readonly _onChannelClosed = (channel: AgentChannel): void => {
    if (channel === this._channel && this._healthChecks === 0) {
      this._labelChanged.emit();
    }
  };

  /** A channel with running turns keeps streaming until they end. */
  private _retire(channel: AgentChannel | null): void {
    if (!channel) {
      return;
    }
    if (channel.turnCount > 0 && !channel.isClosed) {
      this._retired.add(channel);
    } else {
      channel.dispose();
    }
  }

  private _disposeIdleRetired(): void {
    for (const channel of this._retired) {
      if (channel.turnCount === 0 || channel.isClosed) {
        channel.dispose();
        this._retired.delete(channel);
      }
    }
  }

  private readonly _options: ICommTransportOptions;
  private readonly _binding: KernelBinding;
  private readonly _trans: TranslationBundle;
  private _channel: AgentChannel | null = null;
  private readonly _retired = new Set<AgentChannel>();
  private readonly _turns = new Set<CommTurn>();
  private _healthChecks = 0;
  private _isDisposed = false;
  private readonly _labelChanged = new Signal<this, void>(this);
}

interface ICommTurnOptions {
  request: ChunkWireRequest;
  sink: ITurnSink;
  connect: () => Promise<AgentChannel>;
  idleTimeoutMs: number;
  cancelGraceMs: number;
  trans: TranslationBundle;
}

/** One `start_turn` / `resume` and the messages that answer it. */
class CommTurn implements ITurnHandle, IChannelTurn {
  constructor(private readonly _options: ICommTurnOptions) {
    const { idleTimeoutMs, trans } = _options;
    this._idle = new IdleWatch(idleTimeoutMs, () => {
      this._sendCancel();
      this._finish(
        trans.__(
          'No message from the kernel of %1 for %2 s (idle timeout).',
          this._channel?.where ?? '?',
          idleTimeoutMs / 1000
        )
      );
    });
    void this._start();
  }

  /** Fresh per turn (docs/protocol.md §7.2). */
  readonly turnId = UUID.uuid4();
  get done(): Promise<void> {
    return this._done.promise;
  }

  stop(): void {
    if (this._finished || this._stopping) {
      return;
    }
    this._stopping = true;
    if (!this._channel) {
      // Nothing reached the kernel yet: the panel ends the turn itself.
      this._finish();
      return;
    }
    if (!this._sendCancel()) {
      this._finish();
      return;
    }
    this._noteWaitForCell((where, reason) =>
      this._options.trans.__(
        'Stop reaches the kernel of %1 when its running cell ends: %2.',
        where,
        reason
      )
    );
    this._graceTimer = setTimeout(
      () => this._finish(),
      this._options.cancelGraceMs
    );
  }

  receive(message: TurnMessage): void {
    if (this._finished) {
      return;
    }
    this._idle.note();
    switch (message.type) {
      case 'frame':
        this._receiveFrame(message.seq, message.frame);
        break;
      case 'turn_end':
        // Without a terminal frame before it, the EOF rule applies (docs/protocol.md §7.3).
        this._finish();
        break;
      case 'rejected':
        this._finish(
          this._describeRejection(message.reason, message.detail),
          turnRefusal(message.reason)
        );
        break;
    }
  }

  fail(cause: string): void {
    this._finish(this._options.trans.__('%1; the turn was lost.', cause));
  }

  private async _start(): Promise<void> {
    let channel: AgentChannel;
    try {
      channel = await this._options.connect();
    } catch (error) {
      this._finish(sentence(errorMessage(error)));
      return;
    }
    if (this._finished) {
      return;
    }
    this._channel = channel;
    channel.attach(this);
    try {
      channel.send(this._requestMessage());
    } catch (error) {
      this._finish(sentence(errorMessage(error)));
      return;
    }
    this._idle.note();
    this._noteWaitForCell((where, reason) =>
      this._options.trans.__(
        'The agent starts when the running cell of %1 ends: %2.',
        where,
        reason
      )
    );
  }

  /**
   * Say why the kernel is not answering yet: it runs a cell and this comm is
   * not on a subshell (docs/protocol.md §7.5).
   */
  private _noteWaitForCell(
    message: (where: string, reason: string) => string
  ): void {
    const channel = this._channel;
    const reason = channel?.waitsForCells;
    if (channel && reason && channel.kernel.status === 'busy') {
      this._options.sink.diagnostic(message(channel.where, reason));
    }
  }

  private _requestMessage(): JSONObject {
    const request = this._options.request;
    if (request.kind === 'resume') {
      return {
        type: 'resume',
        turn_id: this.turnId,
        thread_id: request.threadId,
        decisions: request.decisions as unknown as JSONObject[],
        ...resumeAnswers(request.reviews),
        ...forkKeys(request.fork)
      };
    }
    const message: JSONObject = {
      type: 'start_turn',
      turn_id: this.turnId,
      thread_id: request.threadId,
      message: request.message,
      ...forkKeys(request.fork)
    };
    if (request.context) {
      message.context = chunkWireContext(request.context);
    }
    return message;
  }

  private _receiveFrame(seq: number | null, frame: unknown): void {
    const { sink, trans } = this._options;
    const expected = this._nextSeq;
    if (seq === null) {
      sink.diagnostic(
        trans.__('A frame from the kernel had no valid seq number.')
      );
    } else if (seq > expected) {
      sink.diagnostic(
        trans.__(
          'Messages lost: expected frame %1 from the kernel, got frame %2 (%3 missing); the answer may be incomplete.',
          expected,
          seq,
          seq - expected
        )
      );
      this._nextSeq = seq + 1;
    } else if (seq < expected) {
      sink.diagnostic(
        trans.__(
          'Frame %1 from the kernel arrived out of order (expected %2).',
          seq,
          expected
        )
      );
    } else {
      this._nextSeq = seq + 1;
    }
    // A comm frame is already parsed: a string is not JSON text to decode.
    const decoded =
      typeof frame === 'string'
        ? failure('frame is a string, not an object')
        : decodeFrame(frame);
    if (decoded.ok) {
      sink.frame(decoded.frame);
    } else {
      sink.diagnostic(
        trans.__(
          'Kernel frame %1: %2',
          seq ?? '?',
          translated(decoded.problem, trans)
        )
      );
    }
  }

  private _describeRejection(reason: string, detail: string): string {
    const trans = this._options.trans;
    switch (reason) {
      case 'busy':
        return trans.__(
          'The kernel rejected the turn: a turn is already running on this conversation.'
        );
      case 'nothing_pending':
      case 'stale_review':
        return trans.__('The kernel did not resume: %1', detail);
      case 'no_agent':
        return trans.__('The kernel has no agent to run the turn: %1', detail);
      case 'bad_request':
        return trans.__('The kernel rejected the request: %1', detail);
      case 'unknown_type':
        return trans.__(
          'The kernel does not know this request (update jupyterlab_agent_panel in the kernel): %1',
          detail
        );
      default:
        return trans.__(
          'The kernel rejected the turn (%1): %2',
          reason,
          detail
        );
    }
  }

  /** Best effort: false when the comm is already gone. */
  private _sendCancel(): boolean {
    try {
      this._channel?.send({ type: 'cancel', turn_id: this.turnId });
      return this._channel !== null;
    } catch {
      return false;
    }
  }

  /** End the turn exactly once. */
  private _finish(reason?: string, refusal?: TurnRefusal): void {
    if (this._finished) {
      return;
    }
    this._finished = true;
    this._idle.dispose();
    clearTimeout(this._graceTimer);
    this._channel?.detach(this);
    try {
      this._options.sink.end(reason, refusal);
    } finally {
      this._done.resolve();
    }
  }

  private _channel: AgentChannel | null = null;
  private _nextSeq = 0;
  private _finished = false;
  private _stopping = false;
  private readonly _idle: IdleWatch;
  private _graceTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly _done = new PromiseDelegate<void>();
}

/** Channel causes are sentence starts; user-facing text ends with a stop. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
