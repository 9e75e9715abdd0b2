/**
 * The notebook changes the agent applied, logged on the turn entry that made
 * them (`ITurnEntry.notebookChanges`) and so saved and restored with the
 * conversation (docs/protocol.md §12.11).
 */
import {
  type INotebookChange,
  readNotebookChanges
} from '../../../contracts/notebook-changes';
import { notebookToolCall } from '../../../contracts/notebook-tools';
import type { TranscriptItem } from '../../../wire/types';
import type { ChatEntry, ITurnEntry } from './chat-entries';

/**
 * The turn that asked for call `callId`: the first whose tool card (AG-UI,
 * a streamed call) or review (a chunk-wire notebook tool call) names it.
 */
export function turnOfCall(
  entries: readonly ChatEntry[],
  callId: string | null
): ITurnEntry | undefined {
  if (callId === null) {
    return undefined;
  }
  return entries.find(
    (entry): entry is ITurnEntry =>
      entry.kind === 'turn' &&
      entry.state.items.some(item => namesCall(item, callId))
  );
}

function namesCall(item: TranscriptItem, callId: string): boolean {
  if (item.kind === 'tool') {
    return item.callId === callId;
  }
  return (
    item.kind === 'interrupt' &&
    item.actions.some(action => notebookToolCall(action)?.callId === callId)
  );
}

/** Log `change` on `entry`. */
export function logChange(entry: ITurnEntry, change: INotebookChange): void {
  entry.notebookChanges = [...(entry.notebookChanges ?? []), change];
}

/** Whether `entry` changed a notebook. */
export function changedNotebooks(entry: ChatEntry): entry is ITurnEntry {
  return entry.kind === 'turn' && (entry.notebookChanges?.length ?? 0) > 0;
}

/** The changes of `turns` (oldest first), in the order they were made. */
export function changesOf(turns: readonly ITurnEntry[]): INotebookChange[] {
  return turns.flatMap(turn => turn.notebookChanges ?? []);
}

/** The turn entry `turnKey` and every later one; none when it is not there. */
export function turnsFrom(
  entries: readonly ChatEntry[],
  turnKey: string
): ITurnEntry[] {
  const at = entries.findIndex(
    entry => entry.kind === 'turn' && entry.key === turnKey
  );
  if (at < 0) {
    return [];
  }
  return entries
    .slice(at)
    .filter((entry): entry is ITurnEntry => entry.kind === 'turn');
}

/** `notebookChanges` of a saved turn entry, for `readEntry`: absent when none. */
export function readChangeLog(raw: unknown): {
  notebookChanges?: INotebookChange[];
} {
  const changes = readNotebookChanges(raw);
  return changes.length > 0 ? { notebookChanges: changes } : {};
}
