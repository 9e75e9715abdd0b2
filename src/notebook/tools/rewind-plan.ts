/**
 * What it takes to bring notebooks back to how they were before some of the
 * agent's changes (docs/protocol.md §12.11), cell by cell: the source before
 * the first change against the source now. A cell that no longer holds what
 * the agent left in it was changed by the user since: a conflict, never
 * overwritten unless the user selects it. Pure: the notebooks are read
 * through `RewindNotebookLookup`.
 */
import {
  type INotebookChange,
  type IRewindCell,
  type IRewindPlan,
  rewindKey
} from '../../contracts/notebook-changes';

/** A notebook as the plan reads it. */
export interface IRewindNotebook {
  /** The index of cell `cellId`; -1 when it has none. */
  find(cellId: string): number;
  sourceAt(index: number): string;
  mimeTypeOf(cellType: string): string;
}

/** The open notebook at `path`, or null. */
export type RewindNotebookLookup = (path: string) => IRewindNotebook | null;

/** Every change the agent made to one cell, in order. */
export interface ICellHistory {
  readonly key: string;
  readonly first: INotebookChange;
  readonly last: INotebookChange;
  /** The position of `first` and `last` among all the changes. */
  readonly firstAt: number;
  readonly lastAt: number;
}

/** The cells `changes` touched, in the order they were first touched. */
export function cellHistories(
  changes: readonly INotebookChange[]
): ICellHistory[] {
  const byKey = new Map<string, ICellHistory>();
  changes.forEach((change, at) => {
    const key = rewindKey(change.path, change.cellId);
    const known = byKey.get(key);
    byKey.set(
      key,
      known
        ? { ...known, last: change, lastAt: at }
        : { key, first: change, last: change, firstAt: at, lastAt: at }
    );
  });
  return [...byKey.values()];
}

/** The source the cell had before the changes; null: it did not exist (the agent inserted it). */
export function sourceBefore(history: ICellHistory): string | null {
  return history.first.kind === 'insert' ? null : history.first.before;
}

/** The source the agent left; null: it deleted the cell. */
export function sourceLeft(history: ICellHistory): string | null {
  return history.last.kind === 'delete' ? null : history.last.after;
}

/** The plan that undoes `changes` (oldest first) on the notebooks as they are. */
export function planRewind(
  changes: readonly INotebookChange[],
  lookup: RewindNotebookLookup
): IRewindPlan {
  const cells: IRewindCell[] = [];
  for (const history of cellHistories(changes)) {
    const cell = planCell(history, lookup(history.first.path));
    if (cell) {
      cells.push(cell);
    }
  }
  return { cells };
}

/** What the rewind does to one cell; null when it already is as before. */
function planCell(
  history: ICellHistory,
  notebook: IRewindNotebook | null
): IRewindCell | null {
  const { path, cellId, cellType } = history.first;
  const target = sourceBefore(history);
  const left = sourceLeft(history);
  const base = {
    key: history.key,
    path,
    cellId,
    cellType,
    mimeType: notebook?.mimeTypeOf(cellType) ?? 'text/plain',
    target: target ?? ''
  };
  if (!notebook) {
    if (target === null && left === null) {
      return null;
    }
    const index = history.last.index;
    return { ...base, index, action: null, status: 'closed', current: '' };
  }
  const index = notebook.find(cellId);
  if (index < 0) {
    if (left !== null) {
      // The user deleted it since.
      const at = history.last.index;
      return {
        ...base,
        index: at,
        action: null,
        status: 'deleted',
        current: ''
      };
    }
    return target === null
      ? null
      : {
          ...base,
          index: history.last.index,
          action: 'reinsert',
          status: 'ready',
          current: ''
        };
  }
  const current = notebook.sourceAt(index);
  if (current === target) {
    return null;
  }
  return {
    ...base,
    index,
    action: target === null ? 'remove' : 'restore',
    status: left !== null && current === left ? 'ready' : 'conflict',
    current
  };
}
