/**
 * The notebook changes the agent applied, as kept with the turn that made
 * them and saved with the conversation (docs/protocol.md §12.11), and what a
 * rewind of those turns would do: plain JSON, shared by the model (which
 * keeps the log), the notebook tools (which write it and rewind) and the
 * panel (which shows the rewind card).
 */
import { isObject, type JsonObject } from '../wire/json';

/** One change the agent applied to a notebook cell. */
export interface INotebookChange {
  readonly kind: 'insert' | 'edit' | 'delete';
  /** The notebook's path. */
  readonly path: string;
  /** The cell's id (nbformat 4.5). */
  readonly cellId: string;
  /** `code`, `markdown` or `raw`. */
  readonly cellType: string;
  /** Its source before the change ('' for an insert). */
  readonly before: string;
  /** Its source after the change ('' for a delete). */
  readonly after: string;
  /** Where the cell was (delete) or is (insert, edit) at the change. */
  readonly index: number;
  /** The tool call that made it, when known. */
  readonly callId: string | null;
  /** Edit: the cell's agent provenance before the edit (absent: none). */
  readonly provenance?: JsonObject;
  /** Delete: the cell as it was (nbformat JSON, its id included). */
  readonly cell?: JsonObject;
  /** Delete: the id of the cell just above it then (null: it was the first). */
  readonly afterCellId?: string | null;
}

/** What a rewind does to a cell: take the agent's cell away, put its source back, or put the deleted cell back. */
export type RewindAction = 'remove' | 'restore' | 'reinsert';

/**
 * `ready`: the cell holds what the agent left; `conflict`: the user changed
 * it since (shown, not selected by default); `deleted`: the user deleted it
 * since (reported, nothing to do); `closed`: its notebook is not open.
 */
export type RewindStatus = 'ready' | 'conflict' | 'deleted' | 'closed';

/** One cell a rewind would change (or cannot). */
export interface IRewindCell {
  /** `path` and `cellId`, one line each: unique in a plan. */
  readonly key: string;
  readonly path: string;
  readonly cellId: string;
  readonly cellType: string;
  /** The language of its source as a MIME type, for the diff's highlighting. */
  readonly mimeType: string;
  /** Where it is now (for `reinsert`: where it goes back). */
  readonly index: number;
  /** Null for `deleted` and `closed`. */
  readonly action: RewindAction | null;
  readonly status: RewindStatus;
  /** Its source now ('' when absent). */
  readonly current: string;
  /** Its source after the rewind ('' for `remove`). */
  readonly target: string;
}

/** What bringing the notebooks back would do, cell by cell, in the order of the changes. */
export interface IRewindPlan {
  readonly cells: readonly IRewindCell[];
}

/** What a rewind did. */
export interface IRewindResult {
  /** The keys of the cells brought back. */
  readonly restored: readonly string[];
  /** Cells selected but left as they are, and why (for the user). */
  readonly skipped: readonly { key: string; reason: string }[];
  /** The notebooks changed: one undo step each. */
  readonly notebooks: readonly string[];
}

/** The key of a cell in a plan. */
export function rewindKey(path: string, cellId: string): string {
  return `${path}\n${cellId}`;
}

/**
 * The changes of a saved turn: the well-formed ones, in order; anything
 * else is left out (the turn itself is kept).
 */
export function readNotebookChanges(raw: unknown): INotebookChange[] {
  if (!Array.isArray(raw)) {
    return [];
  }
  return raw.flatMap(value => {
    const change = readChange(value);
    return change ? [change] : [];
  });
}

function readChange(value: unknown): INotebookChange | null {
  if (!isObject(value)) {
    return null;
  }
  const { kind, path, cellId, cellType, before, after, index, callId } = value;
  if (
    (kind !== 'insert' && kind !== 'edit' && kind !== 'delete') ||
    !isText(path) ||
    !isText(cellId) ||
    !isText(cellType) ||
    typeof before !== 'string' ||
    typeof after !== 'string' ||
    typeof index !== 'number' ||
    !Number.isInteger(index) ||
    index < 0 ||
    (callId !== null && typeof callId !== 'string')
  ) {
    return null;
  }
  const change: INotebookChange = {
    kind,
    path,
    cellId,
    cellType,
    before,
    after,
    index,
    callId,
    ...(isObject(value.provenance) ? { provenance: value.provenance } : {}),
    ...(isObject(value.cell) ? { cell: value.cell } : {}),
    ...(value.afterCellId === null || isText(value.afterCellId)
      ? { afterCellId: value.afterCellId }
      : {})
  };
  return kind === 'delete' && !change.cell ? null : change;
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}
