/**
 * The notebooks open in JupyterLab as the notebook tools see them: found by
 * path (or the active one), read from their live models, changed in one
 * undoable step each, with the changed cell scrolled into view and
 * highlighted for a moment. Nothing here writes the `.ipynb` on disk.
 */
import { CodeCell } from '@jupyterlab/cells';
import type * as nbformat from '@jupyterlab/nbformat';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { Kernel } from '@jupyterlab/services';
import { toolError } from '../../contracts/notebook-tools';
import type { JsonObject } from '../../wire/json';
import { textInRange } from '../../wire/context';
import { PROVENANCE_KEY, type Provenance } from '../cells';
import type { ICellData } from './cell-summary';
import { noKernel, ToolFailure } from './tool-failure';

/** How long a changed cell stays highlighted. */
const HIGHLIGHT_MS = 2000;
/** What JupyterLab's markdown cells are written in (`MarkdownCellModel`). */
const MARKDOWN_MIME_TYPE = 'text/x-ipythongfm';

/** One open notebook. */
export class LiveNotebook {
  constructor(readonly panel: NotebookPanel) {}

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
    const ended = new RunEnd(this.panel, kernel, timeoutMs, signal);
    try {
      const ran = CodeCell.execute(widget, session).then(reply =>
        reply && reply.content.status === 'ok' ? 'ok' : 'error'
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
   * The notebook's shared model; a `closed` failure once the notebook was
   * closed (e.g. while the change waited for review): nothing is changed then.
   */
  private get _shared() {
    return this._open();
  }

  private _open() {
    const model = this.panel.isDisposed ? null : this.panel.content.model;
    if (!model) {
      throw new ToolFailure(
        toolError(
          'closed',
          `${this.path} was closed: nothing was changed in it. It must be open for the notebook tools.`
        )
      );
    }
    return model.sharedModel;
  }

  /** One transaction, fenced off from the edits before and after: one undo step. */
  private _step(change: () => void): void {
    const shared = this._shared as { undoManager?: { stopCapturing(): void } };
    shared.undoManager?.stopCapturing();
    this._shared.transact(change);
    shared.undoManager?.stopCapturing();
  }

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

type RunEndReason = 'timeout' | 'cancelled' | 'closed' | 'kernel_restarted';

/**
 * What ends a cell's run before its reply: the time limit, the user's Stop,
 * the notebook closed, or its kernel restarted, shut down or changed.
 */
class RunEnd {
  constructor(
    private readonly _panel: NotebookPanel,
    private readonly _kernel: Kernel.IKernelConnection,
    timeoutMs: number,
    private readonly _signal: AbortSignal
  ) {
    this.promise = new Promise(resolve => (this._resolve = resolve));
    this._timer = setTimeout(() => this._resolve('timeout'), timeoutMs);
    _signal.addEventListener('abort', this._onAbort, { once: true });
    _panel.disposed.connect(this._onClosed, this);
    _kernel.statusChanged.connect(this._onStatus, this);
    _panel.sessionContext.kernelChanged.connect(this._onKernelChanged, this);
  }

  readonly promise: Promise<RunEndReason>;

  dispose(): void {
    clearTimeout(this._timer);
    this._signal.removeEventListener('abort', this._onAbort);
    this._panel.disposed.disconnect(this._onClosed, this);
    this._kernel.statusChanged.disconnect(this._onStatus, this);
    this._panel.sessionContext.kernelChanged.disconnect(
      this._onKernelChanged,
      this
    );
  }

  private _onAbort = (): void => this._resolve('cancelled');

  private _onClosed(): void {
    this._resolve('closed');
  }

  private _onStatus(_: unknown, status: Kernel.Status): void {
    if (
      status === 'restarting' ||
      status === 'autorestarting' ||
      status === 'dead'
    ) {
      this._resolve('kernel_restarted');
    }
  }

  private _onKernelChanged(): void {
    this._resolve('kernel_restarted');
  }

  private _resolve: (reason: RunEndReason) => void = () => undefined;
  private readonly _timer: ReturnType<typeof setTimeout>;
}

/** What the agent is told when a run ended before its reply (not by its time limit). */
function runEndError(
  reason: Exclude<RunEndReason, 'timeout'>,
  path: string,
  cellId: string
): JsonObject {
  switch (reason) {
    case 'cancelled':
      return toolError(
        'cancelled',
        'The user stopped the run before the cell finished.'
      );
    case 'closed':
      return toolError(
        'closed',
        `${path} was closed while cell ${cellId} ran: its outputs are not known.`
      );
    case 'kernel_restarted':
      return toolError(
        'kernel_restarted',
        `The kernel of ${path} restarted, shut down or changed while cell ${cellId} ran: the run did not finish, and the kernel's variables are gone.`
      );
  }
}

/** The open notebooks, through the notebook tracker. */
export class LiveNotebooks {
  constructor(private readonly _tracker: INotebookTracker) {}

  all(): LiveNotebook[] {
    const found: LiveNotebook[] = [];
    this._tracker.forEach(panel => {
      if (!panel.isDisposed && panel.content.model) {
        found.push(new LiveNotebook(panel));
      }
    });
    return found;
  }

  active(): LiveNotebook | null {
    const panel = this._tracker.currentWidget;
    return panel && !panel.isDisposed && panel.content.model
      ? new LiveNotebook(panel)
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
