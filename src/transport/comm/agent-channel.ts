/**
 * One `agent_panel` comm on one kernel (docs/protocol.md §7): opens it, waits for
 * the kernel's `hello`, routes turn messages to their turns by `turn_id`, and
 * fails those turns when the kernel restarts, dies or closes the comm.
 */
import type { Kernel, KernelMessage } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import { type JSONObject, PromiseDelegate } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import { errorMessage, isObject, type JsonObject } from '../../wire/json';
import type { ICommKernel } from './kernel-binding';

/** The comm protocol version this panel speaks. */
export const COMM_PROTOCOL = 1;

/** The kernel's `hello`: the `/health` fields of the helper (docs/protocol.md §7.3). */
export interface IHello {
  protocol: number;
  ready: boolean;
  status: string;
  message: string;
  agentName: string | null;
}

/** A validated kernel message that belongs to one turn. */
export type TurnMessage =
  | { type: 'frame'; turn_id: string; seq: number | null; frame: unknown }
  | { type: 'turn_end'; turn_id: string; outcome: string | null }
  | { type: 'rejected'; turn_id: string; reason: string; detail: string };

/** What a channel needs of a turn. */
export interface IChannelTurn {
  readonly turnId: string;
  receive(message: TurnMessage): void;
  /** The channel is gone; `cause` is a sentence start such as "The kernel of X restarted". */
  fail(cause: string): void;
}

/**
 * Why a channel could not be opened. `needs_setup`: the user can fix it in the
 * notebook (the comm target is missing); `unreachable`: the kernel did not
 * answer or went away.
 */
export class ChannelError extends Error {
  constructor(
    readonly state: 'needs_setup' | 'unreachable',
    message: string
  ) {
    super(message);
  }
}

export interface IAgentChannelOptions {
  kernel: ICommKernel;
  /** The comm target (setting `commTarget`, default `agent_panel`). */
  target: string;
  /** `jupyterlab-agent-panel@<version>`, sent in the open data. */
  client: string;
  /** The notebook's name, for messages (see `where`). */
  where: string;
  connectTimeoutMs: number;
  trans: TranslationBundle;
  /** Every `hello` (the first one, and those `serve()` sends later). */
  onHello: (channel: AgentChannel, hello: IHello) => void;
  /** The channel closed after it had opened (kernel side, or kernel lost). */
  onClosed: (channel: AgentChannel) => void;
}

export class AgentChannel implements IDisposable {
  constructor(private readonly _options: IAgentChannelOptions) {
    const { kernel, target, client, connectTimeoutMs } = _options;
    this.kernel = kernel;
    this.where = _options.where;
    // Callers await `opened`; a channel nobody waits for must not warn.
    this.opened.catch(() => undefined);
    kernel.statusChanged.connect(this._onKernelStatus, this);
    kernel.connectionStatusChanged.connect(this._onConnectionStatus, this);
    kernel.disposed.connect(this._onKernelDisposed, this);
    this._connectTimer = setTimeout(() => {
      this._close(
        new ChannelError(
          'unreachable',
          this._trans.__(
            'No answer from the %1 comm in the kernel of %2 within %3 s (a running cell delays it until the cell ends).',
            target,
            this.where,
            connectTimeoutMs / 1000
          )
        )
      );
    }, connectTimeoutMs);
    try {
      this._comm = kernel.createComm(target);
      this._comm.onMsg = this._onMsg;
      this._comm.onClose = this._onCommClose;
    } catch (error) {
      this._failToOpen(error);
      return;
    }
    void this._open(this._comm, client);
  }

  readonly kernel: ICommKernel;
  /** The notebook's name in messages; follows renames of the notebook. */
  where: string;
  /** Resolves with the first `hello`; rejects with a `ChannelError`. */
  get opened(): Promise<IHello> {
    return this._opened.promise;
  }

  /** The latest `hello`, once the channel is open. */
  get hello(): IHello | null {
    return this._hello;
  }

  /** Closed by the kernel, lost with it, timed out or disposed. */
  get isClosed(): boolean {
    return this._closed;
  }

  get turnCount(): number {
    return this._turns.size;
  }

  /**
   * Why the kernel handles this comm's messages only between cells (no
   * subshell: docs/protocol.md §7.5), or null when they reach it while a cell
   * runs. Known once the comm is open.
   */
  get waitsForCells(): string | null {
    return this._waitsForCells;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  attach(turn: IChannelTurn): void {
    this._turns.set(turn.turnId, turn);
  }

  detach(turn: IChannelTurn): void {
    if (this._turns.get(turn.turnId) === turn) {
      this._turns.delete(turn.turnId);
    }
  }

  /** Send a panel message; throws with a clear message once closed. */
  send(data: JSONObject): void {
    if (!this._comm) {
      throw new Error(
        this._trans.__(
          'The %1 comm to the kernel of %2 is closed.',
          this._options.target,
          this.where
        )
      );
    }
    this._comm.send(data);
  }

  /** Close the comm (the kernel then cancels its turns) and let go. */
  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._close(
      new ChannelError(
        'unreachable',
        this._trans.__(
          'The connection to the kernel of %1 was closed by the panel',
          this.where
        )
      )
    );
  }

  /**
   * Open the comm once its subshell runs, when it gets one: JupyterLab's kernel
   * connection (services 7.6, setting `commsOverSubshells`, by default one
   * subshell per comm target) starts it asynchronously, and a `comm_open` sent
   * before would reach the main shell, behind a running cell.
   */
  private async _open(comm: Kernel.IComm, client: string): Promise<void> {
    const trans = this._trans;
    try {
      const problem = await subshellProblem(this.kernel, comm);
      this._waitsForCells =
        problem === 'no-subshells'
          ? trans.__(
              'the kernel has no subshells (ipykernel 7 and later have them)'
            )
          : problem === 'comms-not-on-subshells'
            ? trans.__(
                'comms over subshells are turned off (Settings › Kernels › Kernel Comms over subshells)'
              )
            : null;
    } catch (error) {
      // No subshell after all: the comm works on the main shell.
      this._waitsForCells = trans.__(
        'its subshell could not be started (%1)',
        errorMessage(error)
      );
    }
    if (this._closed) {
      return;
    }
    try {
      comm.open({ protocol: COMM_PROTOCOL, client });
      this._commOpened = true;
    } catch (error) {
      this._failToOpen(error);
    }
  }

  private _failToOpen(error: unknown): void {
    this._close(
      new ChannelError(
        'unreachable',
        this._trans.__(
          'Cannot open the %1 comm in the kernel of %2: %3',
          this._options.target,
          this.where,
          errorMessage(error)
        )
      )
    );
  }

  /** Synchronous on purpose: a promise here would pause the kernel's messages. */
  private readonly _onMsg = (msg: KernelMessage.ICommMsgMsg): void => {
    if (this._closed) {
      return;
    }
    const data: unknown = msg.content.data;
    if (!isObject(data) || typeof data.type !== 'string') {
      console.warn('Agent Panel: dropped a comm message without a type.', data);
      return;
    }
    if (data.type === 'hello') {
      this._receiveHello(data);
      return;
    }
    const message = readTurnMessage(data);
    if (message === null) {
      if (data.type === 'rejected') {
        console.warn(
          `Agent Panel: the kernel rejected a message: ${String(data.reason)}: ${String(data.detail)}`
        );
      } else {
        console.warn('Agent Panel: dropped an unreadable comm message.', data);
      }
      return;
    }
    // Messages for a turn this panel does not know are ignored (docs/protocol.md §7.3).
    this._turns.get(message.turn_id)?.receive(message);
  };

  private readonly _onCommClose = (): void => {
    if (this._closed) {
      return;
    }
    const { target } = this._options;
    const where = this.where;
    const cause = this._hello
      ? this._trans.__(
          'The kernel of %1 closed the %2 comm (was `%unload_ext jupyterlab_agent_panel` run?)',
          where,
          target
        )
      : this._trans.__(
          'The kernel of %1 has no %2 comm target: run `%load_ext jupyterlab_agent_panel` in the notebook',
          where,
          target
        );
    // The kernel closed it: closing it again would only log an error there.
    this._comm = null;
    this._close(
      new ChannelError(this._hello ? 'unreachable' : 'needs_setup', cause)
    );
  };

  private _receiveHello(data: JsonObject): void {
    const hello: IHello = {
      protocol: typeof data.protocol === 'number' ? data.protocol : 0,
      ready: data.ready === true,
      status: typeof data.status === 'string' ? data.status : 'unknown',
      message: typeof data.message === 'string' ? data.message : '',
      agentName: typeof data.agent_name === 'string' ? data.agent_name : null
    };
    const first = this._hello === null;
    this._hello = hello;
    if (first) {
      clearTimeout(this._connectTimer);
      this._opened.resolve(hello);
    }
    this._options.onHello(this, hello);
  }

  private _onKernelStatus(_: unknown, status: Kernel.Status): void {
    const where = this.where;
    // A restart clears the comms without calling `onClose`.
    if (status === 'autorestarting') {
      // The server restarts a kernel whose process died (crash, kill, OOM).
      this._lose(this._trans.__('The kernel of %1 died and restarted', where));
    } else if (status === 'restarting') {
      // An auto-restart starts with `restarting` too; the connection reports
      // `autorestarting` in a microtask it queued before telling us. Wait for
      // it, so a death is named as one (losing twice does nothing).
      void Promise.resolve().then(() =>
        this._lose(this._trans.__('The kernel of %1 restarted', where))
      );
    } else if (status === 'dead') {
      this._lose(this._trans.__('The kernel of %1 died', where));
    }
  }

  private _onConnectionStatus(
    _: unknown,
    status: Kernel.ConnectionStatus
  ): void {
    if (status === 'disconnected') {
      this._lose(
        this._trans.__(
          'The connection to the kernel of %1 was lost',
          this.where
        )
      );
    }
  }

  private _onKernelDisposed(): void {
    this._lose(this._trans.__('The kernel of %1 was shut down', this.where));
  }

  private _lose(cause: string): void {
    this._close(new ChannelError('unreachable', cause));
  }

  /** End everything once: reject `opened`, fail the turns, drop listeners. */
  private _close(error: ChannelError): void {
    if (this._closed) {
      return;
    }
    this._closed = true;
    const wasOpen = this._hello !== null;
    clearTimeout(this._connectTimer);
    const kernel = this.kernel;
    kernel.statusChanged.disconnect(this._onKernelStatus, this);
    kernel.connectionStatusChanged.disconnect(this._onConnectionStatus, this);
    kernel.disposed.disconnect(this._onKernelDisposed, this);
    this._closeComm();
    this._opened.reject(error);
    const turns = [...this._turns.values()];
    this._turns.clear();
    for (const turn of turns) {
      turn.fail(error.message);
    }
    if (wasOpen && !this._isDisposed) {
      this._options.onClosed(this);
    }
  }

  /** Tell the kernel, unless the comm is already gone with it. */
  private _closeComm(): void {
    const comm = this._comm;
    this._comm = null;
    if (
      !comm ||
      comm.isDisposed ||
      this.kernel.isDisposed ||
      this.kernel.status === 'dead'
    ) {
      return;
    }
    comm.onClose = () => undefined;
    try {
      if (this._commOpened) {
        comm.close();
      } else {
        comm.dispose(); // never opened (still waiting for its subshell): nothing to tell
      }
    } catch (error) {
      console.warn('Agent Panel: could not close the comm.', error);
    }
  }

  private get _trans(): TranslationBundle {
    return this._options.trans;
  }

  private _comm: Kernel.IComm | null = null;
  private _commOpened = false;
  private _waitsForCells: string | null = null;
  private _hello: IHello | null = null;
  private _closed = false;
  private _isDisposed = false;
  private _connectTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly _opened = new PromiseDelegate<IHello>();
  private readonly _turns = new Map<string, IChannelTurn>();
}

/**
 * Null once `comm` runs on a subshell, or why it will not: the kernel has no
 * subshells (`supported_features` of its kernel info lacks "kernel
 * subshells"; ipykernel 7 has them), or they are turned off for comms.
 */
export async function subshellProblem(
  kernel: ICommKernel,
  comm: Kernel.IComm
): Promise<'no-subshells' | 'comms-not-on-subshells' | null> {
  await kernel.info; // supportsSubshells is known once the kernel info arrived
  if (!kernel.supportsSubshells) {
    return 'no-subshells';
  }
  if ((comm.commsOverSubshells ?? 'disabled') === 'disabled') {
    return 'comms-not-on-subshells';
  }
  // Not part of Kernel.IComm: services' CommHandler resolves it once the
  // subshell exists (and sends the comm's messages there from then on).
  await (comm as { subshellStarted?: Promise<void> }).subshellStarted;
  return null;
}

/** A `frame`, `turn_end` or `rejected` naming its turn, or null. */
function readTurnMessage(data: JsonObject): TurnMessage | null {
  const turnId = data.turn_id;
  if (typeof turnId !== 'string' || !turnId) {
    return null;
  }
  switch (data.type) {
    case 'frame':
      return {
        type: 'frame',
        turn_id: turnId,
        seq: Number.isInteger(data.seq) ? (data.seq as number) : null,
        frame: data.frame
      };
    case 'turn_end':
      return {
        type: 'turn_end',
        turn_id: turnId,
        outcome: typeof data.outcome === 'string' ? data.outcome : null
      };
    case 'rejected':
      return {
        type: 'rejected',
        turn_id: turnId,
        reason: typeof data.reason === 'string' ? data.reason : 'unknown',
        detail: typeof data.detail === 'string' ? data.detail : ''
      };
    default:
      return null;
  }
}
