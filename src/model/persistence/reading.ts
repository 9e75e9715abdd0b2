/**
 * A conversation to open, read from what keeps it: the server's store, the
 * tab's unload copy (the newer of the two wins), or once, the snapshot the
 * panel kept in `IStateDB` before the store (then removed from there).
 */
import type { IStoredConversation } from '../../transport/server/conversation-store';
import { errorMessage, isObject } from '../../wire/json';
import type { IChatRestore } from '../conversation/chat-model';
import type { IQueuedMessage } from '../conversation/message-queue';
import {
  CHAT_STATE_KEY,
  newer,
  readSnapshot,
  type IStateStore
} from './persistence';
import {
  QUEUE_STATE_KEY,
  readQueue,
  readQueueItems
} from './queue-persistence';
import type { IUnloadStore } from './saver';
import { readEntry } from './snapshot-reader';

export interface IReadConversation {
  restore: IChatRestore;
  title: string;
  queue: IQueuedMessage[];
  /** The keys of the entries the store holds (none for a copy it lacks). */
  storedKeys: string[];
  /** The store lacks some of it: everything is sent with the next save. */
  sendAll: boolean;
  /** What could not be read (left out). */
  problems: string[];
}

/**
 * The conversation from the store's copy and the unload copy (JSON text),
 * whichever is newer; null when neither exists.
 */
export function readConversation(
  stored: IStoredConversation | null,
  unloadCopy: string | null
): IReadConversation | null {
  const problems: string[] = [];
  const copy = parseCopy(unloadCopy, problems);
  const storedAsCopy = stored && { ...stored, savedAt: stored.updatedAt };
  const chosen = newer(storedAsCopy, copy);
  if (!chosen) {
    return null;
  }
  const storedKeys = stored
    ? stored.entries.map(entry => String(entry.key))
    : [];
  if (chosen === storedAsCopy && stored) {
    const entries = stored.entries.flatMap((raw, index) => {
      try {
        return [readEntry(raw)];
      } catch (error) {
        problems.push(
          `entry ${index + 1} was left out: ${errorMessage(error)}`
        );
        return [];
      }
    });
    const queue = readQueueItems(stored.queue);
    return {
      restore: {
        threadId: stored.threadId,
        entries,
        endpointName: stored.endpointName,
        model: stored.model,
        transportMemory: stored.transportMemory
      },
      title: stored.title,
      queue: queue.items,
      storedKeys,
      sendAll: false,
      problems: [...problems, ...queue.problems]
    };
  }
  const read = readSnapshot(chosen);
  const record = chosen as { title?: unknown; queue?: unknown };
  const queue = readQueueItems(Array.isArray(record.queue) ? record.queue : []);
  return {
    restore: read.snapshot,
    title: typeof record.title === 'string' ? record.title : '',
    queue: queue.items,
    storedKeys,
    sendAll: true,
    problems: [...problems, ...read.problems, ...queue.problems]
  };
}

/**
 * The conversation and queue the panel kept in `IStateDB` (and the tab's
 * unload copy of that time), to move into the store; null when there are
 * none. `removeLegacyState` forgets them once the store has them.
 */
export async function readLegacyState(
  state: IStateStore,
  unload: IUnloadStore | null
): Promise<IReadConversation | null> {
  const [chat, savedQueue] = await Promise.all([
    state.fetch(CHAT_STATE_KEY),
    state.fetch(QUEUE_STATE_KEY)
  ]);
  const problems: string[] = [];
  const chosen = newer(
    chat,
    parseCopy(unload?.getItem(CHAT_STATE_KEY) ?? null, problems)
  );
  if (!chosen && !isObject(savedQueue)) {
    return null;
  }
  const read = chosen
    ? readSnapshot(chosen)
    : { snapshot: null, problems: [] as string[] };
  let queue: IQueuedMessage[] = [];
  if (savedQueue !== undefined && savedQueue !== null) {
    try {
      const items = readQueue(savedQueue);
      queue = items.items;
      problems.push(...items.problems);
    } catch (error) {
      problems.push(`the saved queue was not moved: ${errorMessage(error)}`);
    }
  }
  if (!read.snapshot && queue.length === 0) {
    return null;
  }
  return {
    restore: read.snapshot ?? { threadId: '', entries: [] },
    title: '',
    queue,
    storedKeys: [],
    sendAll: true,
    problems: [...problems, ...read.problems]
  };
}

export async function removeLegacyState(
  state: IStateStore,
  unload: IUnloadStore | null
): Promise<void> {
  await Promise.all([
    state.remove(CHAT_STATE_KEY),
    state.remove(QUEUE_STATE_KEY)
  ]);
  unload?.removeItem(CHAT_STATE_KEY);
}

function parseCopy(text: string | null, problems: string[]): unknown {
  if (text === null) {
    return null;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    problems.push(
      `the copy kept at unload is not JSON: ${errorMessage(error)}`
    );
    return null;
  }
}
