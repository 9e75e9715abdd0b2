/**
 * The notebooks open in JupyterLab as the notebook tools see them: found by
 * path (or the active one), read from their live models, changed in one
 * undoable step each, with the changed cell scrolled into view and
 * highlighted for a moment. Nothing here writes the `.ipynb` on disk.
 */
import { CodeCell } from '@jupyterlab/cells';
import type * as nbformat from '@jupyterlab/nbformat';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { toolError } from '../../contracts/notebook-tools';
import type { JsonObject } from '../../wire/json';
import { textInRange } from '../../context/workspace';
import { PROVENANCE_KEY, type Provenance } from '../cells';
import type { ICellData } from './cell-summary';
import type { DeletedNotebooks } from './deleted-notebooks';
import { RunEnd, runEndError } from './run-end';
import { noKernel, ToolFailure } from './tool-failure';

/** How long a changed cell stays highlighted. */
const HIGHLIGHT_MS = 2000;
/** What JupyterLab's markdown cells are written in (`MarkdownCellModel`). */
const MARKDOWN_MIME_TYPE = 'text/x-ipythongfm';

/** The part of a notebook's undo manager (Yjs `UndoManager`) a step uses. */
interface IUndoCapture {
  stopCapturing(): void;
  captureTimeout?: number;
}

/** How long the changes of `oneStep` may take and still merge into one undo step. */
const MAX_CAPTURE_MS = 60_000;

/** One open notebook. */
export class LiveNotebook {
  constructor(
    readonly panel: NotebookPanel,
    private readonly _deletions: DeletedNotebooks
  ) {}

  get path(): string {
    return this.panel.context.path;
  }

  /** The language of a cell of type `cellType`, as its editor has it. */
  mimeTypeOf(cellType: string): string {
    return cellType === 'code'
      ? this.panel.content.codeMimetype
      : cellType === 'markdown'
        ? MARKDOWN_MIME_TYPE
        : 'text/plain';
  }

  get cellCount(): number {
    return this._shared.cells.length;
  }

  /** The cell at `index` as the tools read it. */
  cellData(index: number): ICellData {
    const cell = this._shared.cells[index];
    const json = cell.toJSON() as nbformat.ICell;
    return {
      id: cell.id,
      cell_type: cell.cell_type,
      source: cell.getSource(),
      execution_count:
        json.cell_type === 'code'
          ? ((json as nbformat.ICodeCell).execution_count ?? null)
          : undefined,
      outputs:
        json.cell_type === 'code'
          ? (json as nbformat.ICodeCell).outputs
          : undefined
    };
  }

  /** The index of the cell `cellId`; a `not_found` failure when none has it. */
  indexOf(cellId: string): number {
    const index = this._shared.cells.findIndex(cell => cell.id === cellId);
    if (index < 0) {
      throw new ToolFailure(
        toolError(
          'not_found',
          `${this.path} has no cell with the id ${cellId}.`
        )
      );
    }
    return index;
  }

  /** The active cell's index, and the text selected in it. */
  activeCell(): { index: number; selectedText: string } | null {
    const content = this.panel.content;
    const cell = content.activeCell;
    if (!cell) {
      return null;
    }
    const editor = cell.editor;
    const range = editor?.getSelection();
    return {
      index: content.activeCellIndex,
      selectedText: range
        ? textInRange(cell.model.sharedModel.getSource(), range)
        : ''
    };
  }

  kernel(): JsonObject | null {
    const session = this.panel.sessionContext;
    const kernel = session.session?.kernel;
    return kernel
      ? {
          name: kernel.name,
          display_name: session.kernelDisplayName,
          status: kernel.status
        }
      : null;
  }

  /** Refuse a change to a notebook that cannot take one. */
  assertWritable(): void {
    this._open();
    if (!this.panel.context.isReady || this.panel.content.model?.readOnly) {
      throw new ToolFailure(
        toolError('read_only', `${this.path} is read-only or still loading.`)
      );
    }
  }

  /** Insert a cell at `index` (one undo step); returns its id. */
  insert(index: number, cell: nbformat.ICell): string {
    this.assertWritable();
    this._step(() => this._shared.insertCell(index, cell));
    const id = this._shared.cells[index].id;
    this._show(index);
    return id;
  }

  /** Replace a cell's source and record the change (one undo step). */
  setSource(index: number, source: string, provenance: Provenance): void {
    this.assertWritable();
    const cell = this._shared.cells[index];
    this._step(() => {
      cell.setSource(source);
      markProvenance(cell, provenance);
    });
    this._show(index);
  }

  /** Put a cell's source and provenance back as they were (one undo step): Undo from the panel. */
  restoreSource(
    index: number,
    source: string,
    provenance: Provenance | undefined
  ): void {
    this.assertWritable();
    const cell = this._shared.cells[index];
    this._step(() => {
      cell.setSource(source);
      if (provenance) {
        markProvenance(cell, provenance);
      } else {
        cell.deleteMetadata(PROVENANCE_KEY);
      }
    });
    this._show(index);
  }

  /** The agent's provenance the cell records, if any. */
  provenanceOf(index: number): Provenance | undefined {
    const value = this._shared.cells[index].getMetadata(PROVENANCE_KEY);
    return value ? ({ ...(value as Provenance) } as Provenance) : undefined;
  }

  /** The cell at `index` as nbformat JSON, its id included. */
  cellJson(index: number): nbformat.ICell {
    return this._shared.cells[index].toJSON() as nbformat.ICell;
  }

  delete(index: number): void {
    this.assertWritable();
    this._step(() => this._shared.deleteCell(index));
    this._show(Math.min(index, this.cellCount - 1));
  }

  /**
   * Run the code cell at `index` in the notebook's kernel; resolves once it
   * finished or `timeoutMs` passed (the kernel is not interrupted then).
   */
  async run(
    index: number,
    timeoutMs: number,
    signal: AbortSignal
  ): Promise<'ok' | 'error' | 'timeout'> {
    const cellId = this._shared.cells[index].id;
    const session = this.panel.sessionContext;
    const kernel = session.session?.kernel;
    if (!kernel) {
      throw noKernel(this.path);
    }
    const widget = this.panel.content.widgets[index];
    if (!(widget instanceof CodeCell)) {
      throw new ToolFailure(
        toolError(
          'not_code',
          `The cell at index ${index} is not a code cell: only code cells run.`
        )
      );
    }
    this._show(index);
    const ended = new RunEnd(
      this.panel,
      kernel,
      timeoutMs,
      signal,
      this._deletions
    );
    try {
      const ran = CodeCell.execute(widget, session).then(
        reply => (reply && reply.content.status === 'ok' ? 'ok' : 'error'),
        // The kernel's end cancels the execution: the run ended for that reason.
        error => (ended.ending ? ended.promise : Promise.reject(error))
      );
      const outcome = await Promise.race([ran, ended.promise]);
      if (outcome === 'ok' || outcome === 'error' || outcome === 'timeout') {
        return outcome;
      }
      throw new ToolFailure(runEndError(outcome, this.path, cellId));
    } finally {
      ended.dispose();
    }
  }

  /**
   * The notebook's shared model; a `closed` (or `deleted`) failure once the
   * notebook was closed (or its file deleted), e.g. while the change waited
   * for review: nothing is changed then.
   */
  private get _shared() {
    return this._open();
  }

  private _open() {
    const model = this.panel.isDisposed ? null : this.panel.content.model;
    if (!model) {
      const path = this.path;
      throw new ToolFailure({
        ...(this._deletions.has(this.panel)
          ? toolError(
              'deleted',
              `${path} was deleted while the call waited for its review: nothing was changed.`
            )
          : toolError(
              'closed',
              `${path} was closed: nothing was changed in it. It must be open for the notebook tools.`
            )),
        path
      });
    }
    return model.sharedModel;
  }

  /**
   * Make the changes `work` makes through this notebook's methods one undo
   * step: each is its own transaction (so the cells read right after it),
   * and the notebook's undo manager merges them (a rewind, docs/protocol.md §12.11).
   */
  oneStep(work: () => void): void {
    this.assertWritable();
    const undo = (this._shared as { undoManager?: IUndoCapture }).undoManager;
    const timeout = undo?.captureTimeout;
    undo?.stopCapturing();
    this._grouped = true;
    if (undo && typeof timeout === 'number') {
      undo.captureTimeout = MAX_CAPTURE_MS;
    }
    try {
      work();
    } finally {
      this._grouped = false;
      if (undo && typeof timeout === 'number') {
        undo.captureTimeout = timeout;
      }
      undo?.stopCapturing();
    }
  }

  /** One transaction, fenced off from the edits before and after: one undo step. */
  private _step(change: () => void): void {
    const shared = this._shared as { undoManager?: IUndoCapture };
    if (!this._grouped) {
      shared.undoManager?.stopCapturing();
    }
    this._shared.transact(change);
    if (!this._grouped) {
      shared.undoManager?.stopCapturing();
    }
  }

  /** Within `oneStep`: the undo manager merges the changes. */
  private _grouped = false;

  /** Scroll the cell into view and highlight it briefly, without activating the notebook. */
  private _show(index: number): void {
    const widget = this.panel.content.widgets[index];
    if (!widget) {
      return;
    }
    void this.panel.content.scrollToItem(index).catch(() => undefined);
    widget.addClass('jp-AgentPanel-toolChanged');
    setTimeout(
      () => widget.removeClass('jp-AgentPanel-toolChanged'),
      HIGHLIGHT_MS
    );
  }
}

/** The open notebooks, through the notebook tracker. */
export class LiveNotebooks {
  constructor(
    private readonly _tracker: INotebookTracker,
    private readonly _deletions: DeletedNotebooks
  ) {}

  all(): LiveNotebook[] {
    const found: LiveNotebook[] = [];
    this._tracker.forEach(panel => {
      if (!panel.isDisposed && panel.content.model) {
        found.push(new LiveNotebook(panel, this._deletions));
      }
    });
    return found;
  }

  active(): LiveNotebook | null {
    const panel = this._tracker.currentWidget;
    return panel && !panel.isDisposed && panel.content.model
      ? new LiveNotebook(panel, this._deletions)
      : null;
  }

  /** The notebook at `path` (the active one when absent), or a `no_notebook` failure. */
  find(path: unknown): LiveNotebook {
    if (typeof path !== 'string') {
      const active = this.active();
      if (!active) {
        throw new ToolFailure(
          toolError(
            'no_notebook',
            'No notebook is active: open one, or name one by its path (list_notebooks).'
          )
        );
      }
      return active;
    }
    const wanted = path.replace(/^\/+/, '');
    const notebook = this.all().find(open => open.path === wanted);
    if (!notebook) {
      const open = this.all().map(open => open.path);
      throw new ToolFailure(
        toolError(
          'no_notebook',
          `No open notebook has the path ${JSON.stringify(path)}; the open ones are: ${open.length ? open.join(', ') : 'none'}.`
        )
      );
    }
    return notebook;
  }
}

/** Record on a changed cell that the agent changed it, as inserted cells record where they come from. */
function markProvenance(
  cell: { setMetadata(key: string, value: Provenance): void },
  provenance: Provenance
): void {
  cell.setMetadata(PROVENANCE_KEY, { ...provenance });
}
