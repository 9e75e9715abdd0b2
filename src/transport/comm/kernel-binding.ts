/**
 * Which kernel the comm transport talks to: the kernel of the active notebook,
 * or of a pinned one, followed through notebook switches, kernel changes and
 * restarts.
 */
import { PathExt } from '@jupyterlab/coreutils';
import type { Kernel } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import { type ISignal, Signal } from '@lumino/signaling';
import { panelStrings } from '../../contracts/translation';

/** The parts of a kernel connection the comm transport uses. */
export interface ICommKernel {
  /** The kernel's id (kept across restarts). */
  readonly id?: string;
  readonly status: Kernel.Status;
  readonly connectionStatus: Kernel.ConnectionStatus;
  readonly isDisposed: boolean;
  readonly statusChanged: ISignal<unknown, Kernel.Status>;
  readonly connectionStatusChanged: ISignal<unknown, Kernel.ConnectionStatus>;
  readonly disposed: ISignal<unknown, void>;
  /** The kernel info; `supportsSubshells` is known once it resolved. */
  readonly info?: Promise<unknown>;
  /** Whether the kernel info names "kernel subshells" (JEP 91). */
  readonly supportsSubshells?: boolean;
  createComm(targetName: string, commId?: string): Kernel.IComm;
}

/** The parts of a notebook panel the binding reads (a `NotebookPanel`). */
export interface IBindableNotebook {
  readonly isDisposed: boolean;
  readonly disposed: ISignal<unknown, void>;
  readonly context: {
    readonly path: string;
    readonly pathChanged: ISignal<unknown, string>;
  };
  readonly sessionContext: {
    /** `session.kernel` is the primary connection (the one that owns comms). */
    readonly session: { readonly kernel: ICommKernel | null } | null;
    readonly kernelDisplayName: string;
    readonly kernelChanged: ISignal<unknown, unknown>;
  };
}

/** The parts of the notebook tracker the binding reads (`INotebookTracker`). */
export interface INotebookSource {
  readonly currentWidget: IBindableNotebook | null;
  readonly currentChanged: ISignal<unknown, IBindableNotebook | null>;
  readonly widgetAdded: ISignal<unknown, IBindableNotebook>;
  find(
    fn: (notebook: IBindableNotebook) => boolean
  ): IBindableNotebook | undefined;
}

/**
 * - `rebound`: another notebook or kernel (or the kernel went away, or the
 *   notebook was renamed): the label and what a comm reaches may differ;
 * - `restarted`: the bound kernel is idle again after a restart (its comms,
 *   and the comm target `%load_ext` registered, are gone).
 */
export type BindingChange = 'rebound' | 'restarted';

/** Why no comm can be opened now. */
export interface IBindingProblem {
  state: 'needs_setup' | 'unreachable';
  message: string;
}

export interface IKernelBindingOptions {
  notebooks: INotebookSource;
  /** A notebook path to stick to; empty = follow the active notebook. */
  pinnedPath: string;
  trans?: TranslationBundle;
}

export class KernelBinding implements IDisposable {
  constructor(options: IKernelBindingOptions) {
    this._notebooks = options.notebooks;
    this._pinnedPath = normalizePath(options.pinnedPath);
    this._trans = options.trans ?? panelStrings();
    if (this._pinnedPath) {
      this._notebooks.widgetAdded.connect(this._onWidgetAdded, this);
      this._bindNotebook(this._findPinned());
    } else {
      this._notebooks.currentChanged.connect(this._onCurrentChanged, this);
      this._bindNotebook(this._notebooks.currentWidget);
    }
  }

  get changed(): ISignal<this, BindingChange> {
    return this._changed;
  }

  get notebook(): IBindableNotebook | null {
    return this._notebook;
  }

  /** The bound kernel while its connection is alive. */
  get kernel(): ICommKernel | null {
    const kernel = this._kernel;
    return kernel && !kernel.isDisposed ? kernel : null;
  }

  /** The notebook's file name, for messages ("Untitled.ipynb"). */
  get notebookName(): string {
    if (this._notebook) {
      return PathExt.basename(this._notebook.context.path);
    }
    return this._pinnedPath
      ? PathExt.basename(this._pinnedPath)
      : this._trans.__('the active notebook');
  }

  /** "Untitled.ipynb · Python 3 (ipykernel)" */
  get label(): string {
    const notebook = this._notebook;
    if (!notebook) {
      return this._pinnedPath
        ? this._trans.__('%1 (not open)', this.notebookName)
        : this._trans.__('no notebook open');
    }
    return `${this.notebookName} · ${notebook.sessionContext.kernelDisplayName}`;
  }

  /** Why no comm can be opened now, or null when the kernel can be reached. */
  get problem(): IBindingProblem | null {
    const trans = this._trans;
    const name = this.notebookName;
    if (!this._notebook) {
      return {
        state: 'needs_setup',
        message: this._pinnedPath
          ? trans.__('Open %1: this endpoint is pinned to that notebook.', name)
          : trans.__(
              'Open a notebook: this endpoint talks to the kernel of the active notebook.'
            )
      };
    }
    const kernel = this.kernel;
    if (!kernel) {
      return {
        state: 'needs_setup',
        message: trans.__(
          '%1 has no running kernel: start one from the Kernel menu.',
          name
        )
      };
    }
    if (kernel.connectionStatus === 'disconnected') {
      return {
        state: 'unreachable',
        message: trans.__('The connection to the kernel of %1 is lost.', name)
      };
    }
    switch (kernel.status) {
      case 'restarting':
      case 'autorestarting':
        return {
          state: 'unreachable',
          message: trans.__(
            'The kernel of %1 is restarting; then run `%load_ext jupyterlab_agent_panel` in the notebook again.',
            name
          )
        };
      case 'terminating':
      case 'dead':
        return {
          state: 'unreachable',
          message: trans.__(
            'The kernel of %1 is shutting down or dead: restart it from the Kernel menu.',
            name
          )
        };
      default:
        return null;
    }
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._unbindNotebook();
    this._notebooks.widgetAdded.disconnect(this._onWidgetAdded, this);
    this._notebooks.currentChanged.disconnect(this._onCurrentChanged, this);
    Signal.clearData(this);
  }

  private _findPinned(): IBindableNotebook | null {
    return (
      this._notebooks.find(
        notebook =>
          !notebook.isDisposed &&
          normalizePath(notebook.context.path) === this._pinnedPath
      ) ?? null
    );
  }

  private _onCurrentChanged(
    _: unknown,
    notebook: IBindableNotebook | null
  ): void {
    if (notebook !== this._notebook) {
      this._bindNotebook(notebook);
      this._changed.emit('rebound');
    }
  }

  private _onWidgetAdded(_: unknown, notebook: IBindableNotebook): void {
    if (
      !this._notebook &&
      normalizePath(notebook.context.path) === this._pinnedPath
    ) {
      this._bindNotebook(notebook);
      this._changed.emit('rebound');
    }
  }

  private _onNotebookDisposed(): void {
    // Following the active notebook, the tracker announces the next one.
    this._bindNotebook(this._pinnedPath ? this._findPinned() : null);
    this._changed.emit('rebound');
  }

  private _onPathChanged(): void {
    this._changed.emit('rebound');
  }

  private _onKernelChanged(): void {
    // A finished restart also announces the (same) kernel: nothing to do.
    const kernel = this._notebook?.sessionContext.session?.kernel ?? null;
    if (kernel !== this._kernel) {
      this._bindKernel(kernel);
      this._changed.emit('rebound');
    }
  }

  private _onKernelStatus(_: unknown, status: Kernel.Status): void {
    if (status === 'restarting' || status === 'autorestarting') {
      this._restarting = true;
    } else if (this._restarting && (status === 'idle' || status === 'busy')) {
      this._restarting = false;
      const id = this._kernel?.id;
      if (id) {
        restartedAt.set(id, Date.now());
      }
      this._changed.emit('restarted');
    }
  }

  /** A lost connection (and its recovery) changes what health reports. */
  private _onConnectionStatus(
    _: unknown,
    status: Kernel.ConnectionStatus
  ): void {
    if (status === 'disconnected' || status === 'connected') {
      const lost = status === 'disconnected';
      if (lost !== this._disconnected) {
        this._disconnected = lost;
        this._changed.emit('rebound');
      }
    }
  }

  private _onKernelDisposed(): void {
    this._bindKernel(null);
    this._changed.emit('rebound');
  }

  private _bindNotebook(notebook: IBindableNotebook | null): void {
    this._unbindNotebook();
    this._notebook = notebook;
    if (notebook) {
      notebook.disposed.connect(this._onNotebookDisposed, this);
      notebook.context.pathChanged.connect(this._onPathChanged, this);
      notebook.sessionContext.kernelChanged.connect(
        this._onKernelChanged,
        this
      );
    }
    this._bindKernel(notebook?.sessionContext.session?.kernel ?? null);
  }

  private _unbindNotebook(): void {
    const notebook = this._notebook;
    if (notebook) {
      notebook.disposed.disconnect(this._onNotebookDisposed, this);
      notebook.context.pathChanged.disconnect(this._onPathChanged, this);
      notebook.sessionContext.kernelChanged.disconnect(
        this._onKernelChanged,
        this
      );
    }
    this._notebook = null;
    this._bindKernel(null);
  }

  private _bindKernel(kernel: ICommKernel | null): void {
    const previous = this._kernel;
    if (previous) {
      previous.statusChanged.disconnect(this._onKernelStatus, this);
      previous.connectionStatusChanged.disconnect(
        this._onConnectionStatus,
        this
      );
      previous.disposed.disconnect(this._onKernelDisposed, this);
    }
    this._restarting = false;
    this._disconnected = false;
    this._kernel = kernel && !kernel.isDisposed ? kernel : null;
    if (this._kernel) {
      this._kernel.statusChanged.connect(this._onKernelStatus, this);
      this._kernel.connectionStatusChanged.connect(
        this._onConnectionStatus,
        this
      );
      this._kernel.disposed.connect(this._onKernelDisposed, this);
    }
  }

  private readonly _notebooks: INotebookSource;
  private readonly _pinnedPath: string;
  private readonly _trans: TranslationBundle;
  private _notebook: IBindableNotebook | null = null;
  private _kernel: ICommKernel | null = null;
  private _restarting = false;
  private _disconnected = false;
  private _isDisposed = false;
  private readonly _changed = new Signal<this, BindingChange>(this);
}

/** Paths from settings may start with `/`; the contents API's never do. */
function normalizePath(path: string): string {
  return path.trim().replace(/^\/+/, '');
}

/** When each kernel a binding of this page follows last restarted. */
const restartedAt = new Map<string, number>();

/** When kernel `id` last restarted (as far as this page saw), or 0. */
export function lastRestartOf(id: string): number {
  return restartedAt.get(id) ?? 0;
}
