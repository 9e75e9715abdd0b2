/**
 * The kernel comm transport (docs/protocol.md §7): chat with a graph served in the
 * notebook's kernel by `%load_ext jupyterlab_agent_panel` /
 * `jupyterlab_agent_panel.serve(graph)`. Same frames, same reducer as HTTP.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { type ISignal, Signal } from '@lumino/signaling';
import type {
  IAgentTransport,
  IHealthReport,
  IThreadRef
} from '../../contracts/transport';
import type { ITurnHandle, ITurnSink, TurnRequest } from '../../wire/turn';
import { CANCEL_GRACE_MS } from '../defaults';
import { refusedTurn } from '../turn-set';
import {
  AgentChannel,
  ChannelError,
  COMM_PROTOCOL,
  type IHello
} from './agent-channel';
import { CommTurn, sentence } from './comm-turn';
import {
  lastRestartOf,
  type BindingChange,
  type KernelBinding
} from './kernel-binding';
import { panelStrings } from '../../contracts/translation';

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
    this._trans = options.trans ?? panelStrings();
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
