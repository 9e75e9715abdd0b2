/**
 * Fakes for the comm transport: a kernel connection with comms (KernelMock
 * has none), the kernel-side `agent_panel` helper as a script, notebooks and
 * a notebook tracker. Kernel messages arrive asynchronously, as they do over
 * the websocket: `await flush()` lets them land.
 */
import type { Kernel, KernelMessage } from '@jupyterlab/services';
import type { JSONObject, JSONValue } from '@lumino/coreutils';
import { Signal, type Slot } from '@lumino/signaling';
import type {
  IBindableNotebook,
  ICommKernel,
  INotebookSource
} from '../../transport/comm/kernel-binding';

/** A signal that counts its connected slots (a leak shows as a count > 0). */
export class TrackedSignal<T, U> extends Signal<T, U> {
  connections = 0;

  connect(slot: Slot<T, U>, thisArg?: unknown): boolean {
    const connected = super.connect(slot, thisArg);
    this.connections += connected ? 1 : 0;
    return connected;
  }

  disconnect(slot: Slot<T, U>, thisArg?: unknown): boolean {
    const disconnected = super.disconnect(slot, thisArg);
    this.connections -= disconnected ? 1 : 0;
    return disconnected;
  }
}

/** Let queued kernel messages (and the promises they settle) run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise<void>(resolve => setTimeout(resolve, 0));
  }
}

/** The kernel end of one comm, as the Python helper sees it. */
export class KernelSideComm {
  constructor(
    readonly frontend: FakeComm,
    readonly openData: JSONValue
  ) {}

  /** What the panel sent on this comm (after `open`). */
  readonly received: JSONObject[] = [];
  closedByPanel = false;

  send(data: JSONObject): void {
    this.frontend.deliver(data);
  }

  /** The kernel closes the comm (`comm_close`). */
  close(): void {
    this.frontend.deliverClose();
  }
}

type TargetHandler = (comm: KernelSideComm) => void;

/** The frontend comm (`Kernel.IComm`) of the fake kernel. */
export class FakeComm {
  constructor(
    readonly kernel: FakeKernel,
    readonly targetName: string,
    readonly commId: string
  ) {}

  onMsg: (msg: KernelMessage.ICommMsgMsg) => void | PromiseLike<void> = () =>
    undefined;
  onClose: (msg: KernelMessage.ICommCloseMsg) => void | PromiseLike<void> =
    () => undefined;
  kernelSide: KernelSideComm | null = null;
  /** As services' CommHandler: how comms use subshells, and when its subshell runs. */
  commsOverSubshells: string | undefined = undefined;
  subshellStarted: Promise<void> | undefined = undefined;
  /** Every value an `onMsg` returned: a promise would stall the kernel. */
  readonly handlerResults: unknown[] = [];

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  open(data?: JSONValue): Kernel.IShellFuture {
    this._assertUsable('open');
    this.kernel.later(() => this.kernel.handleOpen(this, data ?? {}));
    return {} as Kernel.IShellFuture;
  }

  send(data: JSONValue): Kernel.IShellFuture {
    this._assertUsable('send');
    const side = this.kernelSide;
    this.kernel.later(() => {
      if (side && !side.closedByPanel) {
        side.received.push(data as JSONObject);
        this.kernel.onPanelMessage(side, data as JSONObject);
      }
    });
    return {} as Kernel.IShellFuture;
  }

  close(): Kernel.IShellFuture {
    this._assertUsable('close');
    const side = this.kernelSide;
    if (side) {
      side.closedByPanel = true;
    }
    void this.onClose({} as KernelMessage.ICommCloseMsg);
    this.dispose();
    return {} as Kernel.IShellFuture;
  }

  dispose(): void {
    this._isDisposed = true;
    this.kernel.comms.delete(this.commId);
  }

  /** A `comm_msg` from the kernel. */
  deliver(data: JSONObject): void {
    this.kernel.later(() => {
      if (this.kernel.comms.get(this.commId) === this) {
        this.handlerResults.push(
          this.onMsg({ content: { comm_id: this.commId, data } } as any)
        );
      }
    });
  }

  /** A `comm_close` from the kernel: `onClose`, then the comm is disposed. */
  deliverClose(): void {
    this.kernel.later(() => {
      if (this.kernel.comms.get(this.commId) === this) {
        void this.onClose({
          content: { comm_id: this.commId, data: {} }
        } as any);
        this.dispose();
      }
    });
  }

  private _assertUsable(what: string): void {
    if (this._isDisposed || this.kernel.isDisposed) {
      throw new Error(`Cannot ${what}`);
    }
  }

  private _isDisposed = false;
}

let kernelCount = 0;

/** A kernel connection with comms, statuses and restarts. */
export class FakeKernel implements ICommKernel {
  constructor(
    readonly name = 'python3',
    readonly id = `kernel-${++kernelCount}`
  ) {}

  status: Kernel.Status = 'idle';
  connectionStatus: Kernel.ConnectionStatus = 'connected';
  /** Kernel info and subshells (JEP 91): a kernel without them by default. */
  info: Promise<unknown> = Promise.resolve({});
  supportsSubshells = false;
  /** Each new comm's `commsOverSubshells`, and the promise its subshell start settles. */
  commsOverSubshells = 'perCommTarget';
  subshellStarted: Promise<void> = Promise.resolve();
  readonly statusChanged = new TrackedSignal<this, Kernel.Status>(this);
  readonly connectionStatusChanged = new TrackedSignal<
    this,
    Kernel.ConnectionStatus
  >(this);
  readonly disposed = new TrackedSignal<this, void>(this);
  readonly comms = new Map<string, FakeComm>();
  /** Every comm ever created, in order. */
  readonly created: FakeComm[] = [];
  /** Kernel-side comm targets (what `%load_ext` registers). */
  readonly targets = new Map<string, TargetHandler>();
  /** Called for every message the panel sends to an open comm. */
  onPanelMessage: (side: KernelSideComm, data: JSONObject) => void = () =>
    undefined;

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  createComm(
    targetName: string,
    commId = `comm-${this.created.length}`
  ): Kernel.IComm {
    if (this._isDisposed) {
      throw new Error('Kernel connection is disposed');
    }
    const comm = new FakeComm(this, targetName, commId);
    comm.commsOverSubshells = this.commsOverSubshells;
    comm.subshellStarted = this.subshellStarted;
    this.comms.set(commId, comm);
    this.created.push(comm);
    return comm as unknown as Kernel.IComm;
  }

  /** Run a kernel-side reaction asynchronously (a websocket round trip). */
  later(callback: () => void): void {
    setTimeout(callback, 0);
  }

  handleOpen(comm: FakeComm, data: JSONValue): void {
    const target = this.targets.get(comm.targetName);
    if (!target) {
      // ipykernel: "No such comm target registered", then `comm_close` {}.
      comm.deliverClose();
      return;
    }
    comm.kernelSide = new KernelSideComm(comm, data);
    target(comm.kernelSide);
  }

  setStatus(status: Kernel.Status): void {
    this.status = status;
    this.statusChanged.emit(status);
  }

  setConnectionStatus(status: Kernel.ConnectionStatus): void {
    this.connectionStatus = status;
    this.connectionStatusChanged.emit(status);
  }

  /** What `KernelConnection.restart()` does: comms vanish without `onClose`. */
  restart(): void {
    this.setStatus('restarting');
    this.comms.forEach(comm => comm.dispose());
    this.comms.clear();
    this.targets.clear();
  }

  /**
   * What `KernelConnection` does when the server restarted a kernel whose
   * process died: `restarting`, then `autorestarting` from a microtask it
   * queued first; the comms vanish as in a restart.
   */
  autoRestart(): void {
    void Promise.resolve().then(() => this.setStatus('autorestarting'));
    this.restart();
  }

  /** Status `dead`; the connection then disposes itself. */
  die(): void {
    this.setStatus('dead');
    this.dispose();
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this.comms.forEach(comm => comm.dispose());
    this.comms.clear();
    this.disposed.emit();
  }

  /** Slots still connected to this kernel's signals. */
  get connections(): number {
    return (
      this.statusChanged.connections +
      this.connectionStatusChanged.connections +
      this.disposed.connections
    );
  }

  private _isDisposed = false;
}

export interface IFakeTurn {
  side: KernelSideComm;
  turnId: string;
  message: JSONObject;
}

/**
 * The kernel helper as a script: registers the target, says `hello`, and
 * records each `start_turn` / `resume` for the test to answer.
 */
export class FakeAgentHelper {
  constructor(
    readonly kernel: FakeKernel,
    readonly target = 'agent_panel'
  ) {}

  hello: JSONObject = {
    type: 'hello',
    protocol: 1,
    agent_name: 'Tool Demo Agent',
    ready: true,
    status: 'healthy',
    message: 'Tool Demo Agent is ready'
  };
  readonly turns: IFakeTurn[] = [];
  readonly cancels: string[] = [];
  readonly sides: KernelSideComm[] = [];
  /** Answer a new turn at once (e.g. replay a fixture). */
  onTurn: (turn: IFakeTurn) => void = () => undefined;

  /** `%load_ext jupyterlab_agent_panel` */
  load(): this {
    this.kernel.targets.set(this.target, side => {
      this.sides.push(side);
      side.send(this.hello);
    });
    this.kernel.onPanelMessage = (side, data) => {
      if (data.type === 'start_turn' || data.type === 'resume') {
        const turn = { side, turnId: String(data.turn_id), message: data };
        this.turns.push(turn);
        this.onTurn(turn);
      } else if (data.type === 'cancel') {
        this.cancels.push(String(data.turn_id));
      }
    };
    return this;
  }

  get lastTurn(): IFakeTurn {
    const turn = this.turns[this.turns.length - 1];
    if (!turn) {
      throw new Error('the panel started no turn');
    }
    return turn;
  }

  frame(turn: IFakeTurn, seq: number, frame: JSONValue): void {
    turn.side.send({ type: 'frame', turn_id: turn.turnId, seq, frame });
  }

  turnEnd(turn: IFakeTurn, outcome = 'complete'): void {
    turn.side.send({ type: 'turn_end', turn_id: turn.turnId, outcome });
  }

  reject(turn: IFakeTurn, reason: string, detail: string): void {
    turn.side.send({
      type: 'rejected',
      turn_id: turn.turnId,
      reason,
      detail
    });
  }
}

/** A notebook's session context: its kernel connection and its name. */
export class FakeSessionContext {
  constructor(
    public kernel: FakeKernel | null,
    public kernelDisplayName: string
  ) {}

  readonly kernelChanged = new TrackedSignal<this, unknown>(this);

  get session(): { kernel: FakeKernel } | null {
    return this.kernel ? { kernel: this.kernel } : null;
  }
}

/** A notebook panel with a session context. */
export class FakeNotebook implements IBindableNotebook {
  constructor(
    path: string,
    kernel: FakeKernel | null,
    kernelDisplayName = 'Python 3 (ipykernel)'
  ) {
    this.context = {
      path,
      pathChanged: new TrackedSignal<unknown, string>(this)
    };
    this.sessionContext = new FakeSessionContext(kernel, kernelDisplayName);
  }

  readonly context: {
    path: string;
    pathChanged: TrackedSignal<unknown, string>;
  };
  readonly sessionContext: FakeSessionContext;
  readonly disposed = new TrackedSignal<this, void>(this);

  /** Slots still connected to this notebook's signals. */
  get connections(): number {
    return (
      this.context.pathChanged.connections +
      this.sessionContext.kernelChanged.connections +
      this.disposed.connections
    );
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** "Change Kernel…" */
  setKernel(kernel: FakeKernel | null, displayName?: string): void {
    this.sessionContext.kernel = kernel;
    if (displayName) {
      this.sessionContext.kernelDisplayName = displayName;
    }
    this.sessionContext.kernelChanged.emit({ name: 'kernel' });
  }

  rename(path: string): void {
    this.context.path = path;
    this.context.pathChanged.emit(path);
  }

  dispose(): void {
    this._isDisposed = true;
    this.disposed.emit();
  }

  private _isDisposed = false;
}

/** `INotebookTracker`: opened notebooks and the current one. */
export class FakeNotebookTracker implements INotebookSource {
  currentWidget: FakeNotebook | null = null;
  readonly currentChanged = new TrackedSignal<this, FakeNotebook | null>(this);
  readonly widgetAdded = new TrackedSignal<this, FakeNotebook>(this);
  readonly notebooks: FakeNotebook[] = [];

  find(fn: (notebook: IBindableNotebook) => boolean): FakeNotebook | undefined {
    return this.notebooks.find(fn);
  }

  /** Open a notebook (it becomes the current one). */
  open(notebook: FakeNotebook): FakeNotebook {
    this.notebooks.push(notebook);
    this.widgetAdded.emit(notebook);
    this.activate(notebook);
    return notebook;
  }

  activate(notebook: FakeNotebook | null): void {
    this.currentWidget = notebook;
    this.currentChanged.emit(notebook);
  }

  close(notebook: FakeNotebook): void {
    this.notebooks.splice(this.notebooks.indexOf(notebook), 1);
    notebook.dispose();
    if (this.currentWidget === notebook) {
      this.activate(this.notebooks[this.notebooks.length - 1] ?? null);
    }
  }

  /** Slots still connected to the tracker's signals. */
  get connections(): number {
    return this.currentChanged.connections + this.widgetAdded.connections;
  }
}
