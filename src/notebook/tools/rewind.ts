/**
 * The rewind on the live notebooks (docs/protocol.md §12.11): the plan read
 * from them, and the selected cells brought back as one undo step per
 * notebook, newest change first, so every cell goes back to its place.
 */
import type * as nbformat from '@jupyterlab/nbformat';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { INotebookRewinder } from '../../contracts/extension-points';
import type {
  INotebookChange,
  IRewindCell,
  IRewindPlan,
  IRewindResult
} from '../../contracts/notebook-changes';
import { errorMessage, isObject } from '../../wire/json';
import { PROVENANCE_KEY, type Provenance } from '../cells';
import type { LiveNotebook } from './live-notebook';
import {
  cellHistories,
  type ICellHistory,
  type IRewindNotebook,
  planRewind
} from './rewind-plan';

/** The part of `LiveNotebook` a rewind uses. */
export type RewindTarget = Pick<
  LiveNotebook,
  | 'path'
  | 'cellCount'
  | 'cellData'
  | 'mimeTypeOf'
  | 'insert'
  | 'delete'
  | 'restoreSource'
  | 'oneStep'
>;

/** The open notebook at `path`; throws when it is not open. */
export type FindNotebook = (path: string) => RewindTarget;

export class NotebookRewinder implements INotebookRewinder {
  /** `ready`: the workspace reopened its notebooks (after a reload). */
  constructor(
    private readonly _find: FindNotebook,
    private readonly _trans: TranslationBundle,
    private readonly _ready: () => Promise<void> = () => Promise.resolve()
  ) {}

  async plan(changes: readonly INotebookChange[]): Promise<IRewindPlan> {
    await this._ready();
    return planRewind(changes, path => this._lookup(path));
  }

  async apply(
    changes: readonly INotebookChange[],
    plan: IRewindPlan,
    selected: readonly string[]
  ): Promise<IRewindResult> {
    const histories = new Map(
      cellHistories(changes).map(history => [history.key, history])
    );
    const chosen = plan.cells.filter(
      cell =>
        cell.action !== null &&
        selected.includes(cell.key) &&
        histories.has(cell.key)
    );
    const restored: string[] = [];
    const skipped: { key: string; reason: string }[] = [];
    const notebooks: string[] = [];
    for (const path of new Set(chosen.map(cell => cell.path))) {
      const cells = chosen
        .filter(cell => cell.path === path)
        .map(cell => ({ cell, history: histories.get(cell.key)! }))
        .sort((a, b) => placedAt(b.history) - placedAt(a.history));
      const done = this._applyTo(path, cells, skipped);
      restored.push(...done);
      if (done.length > 0) {
        notebooks.push(path);
      }
    }
    const order = plan.cells.map(cell => cell.key);
    restored.sort((a, b) => order.indexOf(a) - order.indexOf(b));
    return { restored, skipped, notebooks };
  }

  /** Bring back `cells` of the notebook at `path` as one step; the keys done. */
  private _applyTo(
    path: string,
    cells: { cell: IRewindCell; history: ICellHistory }[],
    skipped: { key: string; reason: string }[]
  ): string[] {
    const done: string[] = [];
    try {
      const notebook = this._find(path);
      notebook.oneStep(() => {
        for (const { cell, history } of cells) {
          const why = this._undoCell(notebook, cell, history);
          if (why === null) {
            done.push(cell.key);
          } else {
            skipped.push({ key: cell.key, reason: why });
          }
        }
      });
    } catch (error) {
      const why = this._trans.__('Not restored: %1', errorMessage(error));
      for (const { cell } of cells) {
        if (!done.includes(cell.key)) {
          skipped.push({ key: cell.key, reason: why });
        }
      }
    }
    return done;
  }

  /** Bring one cell back; why not when it changed since the card showed it. */
  private _undoCell(
    notebook: RewindTarget,
    cell: IRewindCell,
    history: ICellHistory
  ): string | null {
    const trans = this._trans;
    const index = indexIn(notebook, cell.cellId);
    if (cell.action === 'reinsert') {
      if (index >= 0) {
        return trans.__('The cell is back already.');
      }
      notebook.insert(reinsertAt(notebook, history), reinserted(cell, history));
      return null;
    }
    if (index < 0) {
      return trans.__('The cell was deleted since.');
    }
    if (notebook.cellData(index).source !== cell.current) {
      return trans.__(
        'The cell changed since this card showed it: left as it is.'
      );
    }
    if (cell.action === 'remove') {
      notebook.delete(index);
    } else {
      notebook.restoreSource(index, cell.target, provenanceBefore(history));
    }
    return null;
  }

  private _lookup(path: string): IRewindNotebook | null {
    let notebook: RewindTarget;
    try {
      notebook = this._find(path);
    } catch {
      return null;
    }
    return {
      find: cellId => indexIn(notebook, cellId),
      sourceAt: index => notebook.cellData(index).source,
      mimeTypeOf: cellType => notebook.mimeTypeOf(cellType)
    };
  }
}

/** Where a cell's undo goes in the order: an insert's undo by the insert, others by their last change. */
function placedAt(history: ICellHistory): number {
  return history.first.kind === 'insert' && history.last.kind !== 'delete'
    ? history.firstAt
    : history.lastAt;
}

function indexIn(notebook: RewindTarget, cellId: string): number {
  for (let index = 0; index < notebook.cellCount; index++) {
    if (notebook.cellData(index).id === cellId) {
      return index;
    }
  }
  return -1;
}

/** Below the cell that was above it, else where it was. */
function reinsertAt(notebook: RewindTarget, history: ICellHistory): number {
  const above = history.last.afterCellId;
  if (above === null) {
    return 0;
  }
  const at = above === undefined ? -1 : indexIn(notebook, above);
  return at >= 0 ? at + 1 : Math.min(history.last.index, notebook.cellCount);
}

/** The deleted cell as it was before the changes. */
function reinserted(cell: IRewindCell, history: ICellHistory): nbformat.ICell {
  const json = { ...(history.last.cell ?? {}) } as nbformat.ICell;
  const metadata = { ...(json.metadata ?? {}) } as nbformat.ICellMetadata;
  const provenance = provenanceBefore(history);
  if (provenance) {
    metadata[PROVENANCE_KEY] = { ...provenance };
  } else {
    delete metadata[PROVENANCE_KEY];
  }
  return { ...json, id: cell.cellId, source: cell.target, metadata };
}

/** The agent's provenance the cell had before the changes (none: undefined). */
function provenanceBefore(history: ICellHistory): Provenance | undefined {
  const { first } = history;
  const metadata = first.kind === 'delete' ? first.cell?.metadata : undefined;
  const value =
    first.kind === 'edit'
      ? first.provenance
      : isObject(metadata)
        ? metadata[PROVENANCE_KEY]
        : undefined;
  return isObject(value) ? (value as unknown as Provenance) : undefined;
}
