import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import type { Widget } from '@lumino/widgets';
import { cellSource } from '../context/workspace';
import { lastError, outputAttachment } from '../context/attachments';
import {
  cellSelection,
  editorSelection,
  type IDocumentRef,
  type IEditorRange,
  type ISelectionRef,
  type IWorkspaceSnapshot
} from '../context/workspace';
import type { IContextSource } from '../model/conversation/composer-context';

/** An editor model: its text, and the selections its editors report. */
export interface IEditorModelPort {
  readonly sharedModel: { getSource(): string };
  readonly selections: { readonly changed: ISignal<any, any> };
}

/** The part of `CodeEditor.IEditor` read here. */
export interface IEditorPort {
  readonly model: IEditorModelPort;
  getSelection(): IEditorRange;
}

/** The part of a cell widget read here. */
export interface ICellPort {
  readonly model: IEditorModelPort & {
    /** A code cell's outputs (`IOutputAreaModel`), as nbformat JSON. */
    readonly outputs?: { toJSON(): unknown[] };
  };
  /** Null until the cell is rendered. */
  readonly editor: IEditorPort | null;
}

/** The part of a notebook widget's content (`Notebook`) read here. */
export interface INotebookContentPort {
  readonly activeCellIndex: number;
  readonly activeCell: ICellPort | null;
  /** Its cells, in order. */
  readonly widgets?: readonly ICellPort[];
}

/** A cell that ran (`NotebookActions.executed`). */
export interface IExecutedPort {
  readonly notebook: unknown;
  readonly cell: ICellPort;
  readonly success: boolean;
}

export interface IWorkspaceContextOptions {
  /** The application shell: its current main-area widget. */
  shell: {
    readonly currentWidget: Widget | null;
    readonly currentChanged?: ISignal<any, any>;
  };
  /** Which widgets are notebooks (`INotebookTracker`), if notebooks exist. */
  notebooks?: {
    has(widget: Widget): boolean;
    readonly activeCellChanged: ISignal<any, any>;
  } | null;
  /** Cells as they finish running (`NotebookActions.executed`). */
  executed?: ISignal<any, IExecutedPort> | null;
  /** The default file browser, for the current directory. */
  fileBrowser?: {
    readonly model: {
      readonly path: string;
      readonly pathChanged: ISignal<any, any>;
    };
  } | null;
}

/**
 * Reads what the user is looking at: the file browser's folder, the
 * current document, and the active cell or the editor selection. Follows
 * the shell, the notebooks' active cell, the folder and the selection of
 * the editor in focus, and says when any of them changes.
 */
export class WorkspaceContextSource implements IContextSource, IDisposable {
  constructor(private readonly _options: IWorkspaceContextOptions) {
    const { shell, notebooks, fileBrowser, executed } = _options;
    shell.currentChanged?.connect(this._onCurrent, this);
    notebooks?.activeCellChanged.connect(this._onCurrent, this);
    fileBrowser?.model.pathChanged.connect(this._emit, this);
    executed?.connect(this._onExecuted, this);
    this._followEditor();
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  snapshot(): IWorkspaceSnapshot {
    const { shell, fileBrowser } = this._options;
    const widget = shell.currentWidget;
    const document = widget ? this._documentOf(widget) : null;
    const offered = widget ? this._offeredError(widget, document!) : null;
    return {
      directory: fileBrowser ? fileBrowser.model.path : null,
      document,
      selection: widget ? this._selectionOf(widget) : null,
      ...(offered ? { offered: [offered] } : {})
    };
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    const { shell, notebooks, fileBrowser, executed } = this._options;
    shell.currentChanged?.disconnect(this._onCurrent, this);
    notebooks?.activeCellChanged.disconnect(this._onCurrent, this);
    fileBrowser?.model.pathChanged.disconnect(this._emit, this);
    executed?.disconnect(this._onExecuted, this);
    this._failed = null;
    this._followed?.selections.changed.disconnect(this._emit, this);
    this._followed = null;
    Signal.clearData(this);
  }

  private _documentOf(widget: Widget): IDocumentRef {
    const path = pathOf(widget);
    const kind = this._notebookOf(widget)
      ? 'notebook'
      : editorOf(widget)
        ? 'file'
        : 'other';
    return { path, title: widget.title.label, kind };
  }

  private _selectionOf(widget: Widget): ISelectionRef | null {
    const notebook = this._notebookOf(widget);
    if (notebook) {
      const cell = notebook.activeCell;
      if (!cell) {
        return null;
      }
      return cellSelection(
        cell.model.sharedModel.getSource(),
        cell.editor?.getSelection() ?? null,
        notebook.activeCellIndex
      );
    }
    const editor = editorOf(widget);
    return editor
      ? editorSelection(
          editor.model.sharedModel.getSource(),
          editor.getSelection()
        )
      : null;
  }

  /**
   * The error the active cell shows, else the one the cell run last in
   * this notebook raised (running a cell moves on to the next one).
   */
  private _offeredError(widget: Widget, document: IDocumentRef) {
    const notebook = this._notebookOf(widget);
    if (!notebook) {
      return null;
    }
    const failed =
      this._failed?.notebook === notebook ? this._failed.cell : null;
    for (const cell of [notebook.activeCell, failed]) {
      const error = cell ? lastError(cell.model.outputs?.toJSON() ?? []) : null;
      const index = cell ? (notebook.widgets?.indexOf(cell) ?? -1) : -1;
      if (error && index >= 0) {
        return outputAttachment(error, cellSource(index, document));
      }
    }
    return null;
  }

  private _onExecuted(_: unknown, executed: IExecutedPort): void {
    if (!executed.success) {
      this._failed = { notebook: executed.notebook, cell: executed.cell };
    } else if (this._failed?.cell === executed.cell) {
      this._failed = null;
    }
    this._emit();
  }

  private _notebookOf(widget: Widget): INotebookContentPort | null {
    const notebooks = this._options.notebooks;
    return notebooks?.has(widget)
      ? ((widget as unknown as { content: INotebookContentPort }).content ??
          null)
      : null;
  }

  /** Watch the selection of the editor model the user works in. */
  private _followEditor(): void {
    const widget = this._options.shell.currentWidget;
    const model = widget
      ? (this._notebookOf(widget)?.activeCell?.model ??
        editorOf(widget)?.model ??
        null)
      : null;
    if (model === this._followed) {
      return;
    }
    this._followed?.selections.changed.disconnect(this._emit, this);
    this._followed = model;
    model?.selections.changed.connect(this._emit, this);
  }

  private _onCurrent(): void {
    this._followEditor();
    this._emit();
  }

  private _emit(): void {
    if (!this._isDisposed) {
      this._changed.emit();
    }
  }

  private _followed: IEditorModelPort | null = null;
  private _failed: { notebook: unknown; cell: ICellPort } | null = null;
  private _isDisposed = false;
  private readonly _changed = new Signal<this, void>(this);
}

/** A document widget's path (`context.path`), or null. */
function pathOf(widget: Widget): string | null {
  const path = (widget as unknown as { context?: { path?: unknown } }).context
    ?.path;
  return typeof path === 'string' && path ? path : null;
}

/** The editor of a file editor widget (`content.editor`), or null. */
function editorOf(widget: Widget): IEditorPort | null {
  const editor = (widget as unknown as { content?: { editor?: unknown } })
    .content?.editor as Partial<IEditorPort> | undefined;
  return editor &&
    typeof editor.getSelection === 'function' &&
    typeof editor.model?.sharedModel?.getSource === 'function'
    ? (editor as IEditorPort)
    : null;
}
