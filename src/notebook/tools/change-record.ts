/**
 * An applied change, as the notebook tools made it and as the conversation's
 * change log keeps it (docs/protocol.md §12.11): plain JSON, saved with the
 * turn.
 */
import type * as nbformat from '@jupyterlab/nbformat';
import type { INotebookChange } from '../../contracts/notebook-changes';
import type { JsonObject } from '../../wire/json';
import type { Provenance } from '../cells';

/** One change as applied: enough to take it back. */
export type AppliedChange =
  | {
      kind: 'insert';
      path: string;
      cellId: string;
      /** What the agent put in it. */
      source: string;
      index: number;
      cellType: string;
    }
  | {
      kind: 'edit';
      path: string;
      cellId: string;
      before: string;
      after: string;
      /** The cell's provenance before the edit (none: undefined). */
      provenance: Provenance | undefined;
      index: number;
      cellType: string;
    }
  | {
      kind: 'delete';
      path: string;
      /** Where it was, and the cell as it was (its id included). */
      index: number;
      cell: nbformat.ICell;
      /** The id of the cell above it then (null: it was the first). */
      afterCellId: string | null;
    };

/**
 * A deleted cell bigger than this (as JSON) is kept without its outputs:
 * the log is saved with the conversation, and its source is what a rewind
 * needs.
 */
export const MAX_KEPT_CELL_CHARS = 100_000;

export function loggedChange(
  callId: string | null,
  change: AppliedChange
): INotebookChange {
  const { path } = change;
  switch (change.kind) {
    case 'insert':
      return {
        kind: 'insert',
        path,
        cellId: change.cellId,
        cellType: change.cellType,
        before: '',
        after: change.source,
        index: change.index,
        callId
      };
    case 'edit':
      return {
        kind: 'edit',
        path,
        cellId: change.cellId,
        cellType: change.cellType,
        before: change.before,
        after: change.after,
        index: change.index,
        callId,
        ...(change.provenance
          ? { provenance: { ...change.provenance } as JsonObject }
          : {})
      };
    case 'delete':
      return {
        kind: 'delete',
        path,
        cellId: String(change.cell.id ?? ''),
        cellType: change.cell.cell_type,
        before: sourceText(change.cell.source),
        after: '',
        index: change.index,
        callId,
        cell: keptCell(change.cell),
        afterCellId: change.afterCellId
      };
  }
}

function sourceText(source: nbformat.MultilineString): string {
  return Array.isArray(source) ? source.join('') : source;
}

/** The cell as JSON, without its outputs when they make it too big to keep. */
function keptCell(cell: nbformat.ICell): JsonObject {
  const json = JSON.parse(JSON.stringify(cell)) as JsonObject;
  if (
    json.cell_type === 'code' &&
    JSON.stringify(json).length > MAX_KEPT_CELL_CHARS
  ) {
    json.outputs = [];
  }
  return json;
}
