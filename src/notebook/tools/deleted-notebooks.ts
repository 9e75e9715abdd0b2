/**
 * The open notebooks whose file was deleted in this JupyterLab (the file
 * browser's Delete: `DocumentManager.deleteFile` shuts the notebook's kernel
 * down, deletes the file, then closes the notebook), so that a call waiting
 * on one is told it was deleted, not that it was closed or its kernel
 * restarted (docs/protocol.md §12.5). A file deleted by another program is
 * not seen: JupyterLab keeps its notebook open, and so do the tools.
 */
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { Contents } from '@jupyterlab/services';
import type { IDisposable } from '@lumino/disposable';
import { type ISignal, Signal } from '@lumino/signaling';

export class DeletedNotebooks implements IDisposable {
  constructor(
    private readonly _contents: Contents.IManager,
    private readonly _tracker: Pick<INotebookTracker, 'forEach'>
  ) {
    _contents.fileChanged.connect(this._onFileChanged, this);
  }

  /** Emits each open notebook as its file (or a folder above it) is deleted. */
  get deleted(): ISignal<this, NotebookPanel> {
    return this._deleted;
  }

  /** Whether the file of `panel` was deleted while it was open. */
  has(panel: NotebookPanel): boolean {
    return this._panels.has(panel);
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._contents.fileChanged.disconnect(this._onFileChanged, this);
    Signal.clearData(this);
  }

  private _onFileChanged(_: unknown, change: Contents.IChangedArgs): void {
    const path = change.type === 'delete' ? change.oldValue?.path : undefined;
    if (!path) {
      return;
    }
    const gone = this._contents.localPath(path);
    this._tracker.forEach(panel => {
      const own = this._contents.localPath(panel.context.path);
      if (own === gone || own.startsWith(`${gone}/`)) {
        this._panels.add(panel);
        this._deleted.emit(panel);
      }
    });
  }

  private readonly _panels = new WeakSet<NotebookPanel>();
  private readonly _deleted = new Signal<this, NotebookPanel>(this);
  private _isDisposed = false;
}
