/**
 * Putting cells into a notebook model as one undoable step.
 */
import type { INotebookModel } from '@jupyterlab/notebook';
import type { NotebookCell } from './cells';

/** Where inserted cells go, relative to the active cell. */
export type InsertPosition = 'below-active' | 'end' | 'replace-active';

/** The part of a `Notebook` widget insertion needs. */
export interface IInsertionTarget {
  readonly model: INotebookModel | null;
  activeCellIndex: number;
}

/**
 * Insert `cells` and make the first one active; returns its index. One
 * transaction, fenced off from the edits before and after it, so one undo
 * removes exactly these cells (and brings back a replaced one). Nothing is
 * executed: code cells keep `execution_count: null`.
 */
export function insertCells(
  target: IInsertionTarget,
  cells: readonly NotebookCell[],
  position: InsertPosition
): number {
  const model = target.model;
  if (!model) {
    throw new Error('The notebook has no model to insert into.');
  }
  if (model.readOnly) {
    throw new Error('The notebook is read-only.');
  }
  const shared = model.sharedModel;
  const count = shared.cells.length;
  const active = Math.min(Math.max(target.activeCellIndex, 0), count - 1);
  const replace = position === 'replace-active' && count > 0;
  const index =
    position === 'end' || count === 0 ? count : replace ? active : active + 1;
  separateUndoSteps(model);
  shared.transact(() => {
    if (replace) {
      shared.deleteCell(index);
    }
    shared.insertCells(index, [...cells]);
  });
  separateUndoSteps(model);
  target.activeCellIndex = index;
  return index;
}

/**
 * The notebook's Yjs undo manager merges changes made within half a second
 * into one step; stopping its capture keeps an insertion a step of its own.
 * (`undoManager` is on the Yjs notebook, not on `ISharedNotebook`.)
 */
function separateUndoSteps(model: INotebookModel): void {
  const { undoManager } = model.sharedModel as {
    undoManager?: { stopCapturing(): void };
  };
  undoManager?.stopCapturing();
}

/** The sources of the model's code cells (to find the names they bind). */
export function codeSources(model: INotebookModel): string[] {
  return model.sharedModel.cells
    .filter(cell => cell.cell_type === 'code')
    .map(cell => cell.getSource());
}

/** The notebook holds nothing but one empty cell, as a new notebook does. */
export function isBlank(model: INotebookModel): boolean {
  const cells = model.sharedModel.cells;
  return (
    cells.length === 0 || (cells.length === 1 && cells[0].getSource() === '')
  );
}

/**
 * Make `cells` the whole content of a notebook that was just created, with no
 * undo history (undo must not bring back the blank cell it started with).
 */
export function fillNewNotebook(
  target: IInsertionTarget,
  cells: readonly NotebookCell[]
): void {
  const shared = target.model!.sharedModel;
  shared.transact(() => {
    shared.deleteCellRange(0, shared.cells.length);
    shared.insertCells(0, [...cells]);
  });
  shared.clearUndoHistory();
  target.activeCellIndex = 0;
}
