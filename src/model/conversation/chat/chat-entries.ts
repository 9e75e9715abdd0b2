/**
 * The entries of a conversation (the user's messages and the agent's turns)
 * and what is read from a list of them: its last turn, an item, the tokens
 * used, the message a turn answers.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { UUID } from '@lumino/coreutils';
import type { INotebookChange } from '../../../contracts/notebook-changes';
import type { ITurnContext, TurnRequest } from '../../../wire/turn';
import type { JsonObject } from '../../../wire/json';
import { applyLocalEvent } from '../../../wire/local-events';
import type {
  ITokenUsage,
  ITurnState,
  TranscriptItem,
  TurnChange
} from '../../../wire/types';
import type { IBranchLinks } from './branches';
import { failInterruptedTools } from './client-tools';

export interface IUserEntry extends IBranchLinks {
  readonly kind: 'user';
  readonly key: string;
  readonly text: string;
  readonly context: ITurnContext | null;
  readonly time: number;
}

export interface ITurnEntry extends IBranchLinks {
  readonly kind: 'turn';
  readonly key: string;
  /** What this panel sent; null for a run another client started (AG-UI). */
  readonly request: TurnRequest | null;
  readonly state: ITurnState;
  readonly startedAt: number;
  endedAt: number | null;
  /** The page was reloaded while this turn streamed; it was ended locally. */
  interruptedByReload?: boolean;
  /**
   * Another tab or window runs this turn: shown as far as that tab saved it
   * (the library follows the store until it ends). Never saved.
   */
  runningElsewhere?: boolean;
  /**
   * The transport memory of the branch this turn ends, kept while another
   * branch is shown (docs/protocol.md §13.8).
   */
  branchMemory?: JsonObject | null;
  /** The notebook changes the agent applied in this turn (`change-log.ts`). */
  notebookChanges?: INotebookChange[];
}

export type ChatEntry = IUserEntry | ITurnEntry;

export interface ITurnUpdate {
  readonly entry: ITurnEntry;
  readonly changes: readonly TurnChange[];
}

/** A new message of the user; refused when it is empty. */
export function userEntry(
  text: string,
  context: ITurnContext | undefined,
  trans: TranslationBundle
): IUserEntry {
  if (!text.trim()) {
    throw new Error(trans.__('The message is empty.'));
  }
  return {
    kind: 'user',
    key: UUID.uuid4(),
    text,
    context: context ?? null,
    time: Date.now()
  };
}

/** The request that sends message `entry` on thread `threadId`. */
export function chatRequest(
  threadId: string,
  entry: IUserEntry,
  messageId = entry.key
): TurnRequest {
  return {
    kind: 'chat',
    threadId,
    message: entry.text,
    context: entry.context ?? undefined,
    messageId
  };
}

export function lastTurn(
  entries: readonly ChatEntry[]
): ITurnEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry.kind === 'turn') {
      return entry;
    }
  }
  return undefined;
}

/** The most recent user message of `entries`. */
export function lastMessage(
  entries: readonly ChatEntry[]
): IUserEntry | undefined {
  return [...entries]
    .reverse()
    .find((entry): entry is IUserEntry => entry.kind === 'user');
}

export function findItem(
  entries: readonly ChatEntry[],
  turnKey: string,
  itemKey: number
): TranscriptItem | undefined {
  const entry = entries.find(
    (e): e is ITurnEntry => e.kind === 'turn' && e.key === turnKey
  );
  return entry?.state.items.find(item => item.key === itemKey);
}

/** The tokens the turns of `entries` reported, summed; null when none did. */
export function tokenUsage(entries: readonly ChatEntry[]): ITokenUsage | null {
  const used = entries.flatMap(entry =>
    entry.kind === 'turn' && entry.state.usage ? [entry.state.usage] : []
  );
  if (used.length === 0) {
    return null;
  }
  const sum = (key: keyof ITokenUsage): number | null => {
    const counts = used
      .map(usage => usage[key])
      .filter((count): count is number => count !== null);
    return counts.length > 0 ? counts.reduce((a, b) => a + b, 0) : null;
  };
  return {
    inputTokens: sum('inputTokens'),
    outputTokens: sum('outputTokens')
  };
}

/** The id the message at `index` of `entries` was sent with. */
export function messageIdAt(
  entries: readonly ChatEntry[],
  index: number
): string {
  const next = entries[index + 1];
  const request = next?.kind === 'turn' ? next.request : null;
  return request?.kind === 'chat' && request.messageId
    ? request.messageId
    : entries[index].key;
}

/** The user message that turn `key` of `entries` answers. */
export function messageBefore(
  entries: readonly ChatEntry[],
  key: string
): IUserEntry | undefined {
  const index = entries.findIndex(entry => entry.key === key);
  for (let i = index - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry.kind === 'user') {
      return entry;
    }
  }
  return undefined;
}

/**
 * End the turns of restored `entries` that were still streaming when they
 * were saved: they cannot be resumed. Each ends here as cancelled and is
 * marked `interruptedByReload`, or, when another tab or window runs it,
 * `runningElsewhere`; its client tools fail with the reason.
 */
export function endUnfinishedTurns(
  entries: readonly ChatEntry[],
  runningElsewhere: boolean,
  trans: TranslationBundle
): void {
  const now = Date.now();
  for (const entry of entries) {
    if (entry.kind !== 'turn') {
      continue;
    }
    const cut =
      applyLocalEvent(entry.state, { type: 'ended_by_reload' }).length > 0;
    if (cut && runningElsewhere) {
      entry.runningElsewhere = true;
    } else if (cut) {
      entry.endedAt = entry.endedAt ?? now;
      entry.interruptedByReload = true;
    }
    failInterruptedTools(
      entry.state,
      runningElsewhere
        ? trans.__('Runs in another tab or window.')
        : trans.__('Interrupted by a page reload.')
    );
  }
}
