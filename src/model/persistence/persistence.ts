/**
 * The conversation as a snapshot: what the unload copy holds, and what the
 * panel saved in `IStateDB` before the server's store (migrated from there
 * once, by `ConversationLibrary`'s migration in `../library/library.ts`).
 */
import type { ReadonlyPartialJSONValue } from '@lumino/coreutils';
import { isModelId } from '../../contracts/models';
import type { ChatModel } from '../conversation/chat-model';
import type { ChatEntry } from '../conversation/chat/chat-entries';
import { errorMessage, isObject, type JsonObject } from '../../wire/json';
import { readEntry } from './snapshot-reader';

/** The IStateDB key the conversation was saved under before the store. */
export const CHAT_STATE_KEY = 'jupyterlab-agent-panel:conversation';

/** What is saved: plain JSON, versioned so a later format can migrate. */
export interface IChatSnapshot {
  version: 1;
  threadId: string;
  entries: ChatEntry[];
  /** The conversation's endpoint (absent in older snapshots: the default). */
  endpointName?: string | null;
  /** The model it chose (absent in older snapshots: the endpoint's default). */
  model?: string | null;
  /** When it was taken (ms since the epoch; absent in older snapshots). */
  savedAt?: number;
  /**
   * What the transport keeps of the conversation (AG-UI: the thread's
   * messages, state and open interrupts); absent in older snapshots.
   */
  transportMemory?: JsonObject | null;
}

/** The part of `IStateDB` the panel uses. */
export interface IStateStore {
  fetch(id: string): Promise<unknown>;
  save(id: string, value: ReadonlyPartialJSONValue): Promise<unknown>;
  remove(id: string): Promise<void>;
}

export function snapshotOf(model: ChatModel): IChatSnapshot {
  return {
    version: 1,
    threadId: model.threadId,
    entries: [...model.allEntries],
    endpointName: model.endpointName,
    model: model.chosenModel,
    savedAt: Date.now(),
    transportMemory: model.transportMemory
  };
}

/**
 * Read a stored snapshot. A snapshot that is not one throws, naming what is
 * wrong; an unreadable entry is left out and reported, the others are kept.
 */
export function readSnapshot(value: unknown): {
  snapshot: IChatSnapshot;
  problems: string[];
} {
  if (!isObject(value)) {
    throw new Error('the saved conversation is not a JSON object');
  }
  const record = value;
  if (record.version !== 1) {
    throw new Error(
      `the saved conversation has version ${JSON.stringify(record.version)}, expected 1`
    );
  }
  if (typeof record.threadId !== 'string' || !record.threadId) {
    throw new Error('the saved conversation has no thread id');
  }
  if (!Array.isArray(record.entries)) {
    throw new Error('the saved conversation has no list of entries');
  }
  const problems: string[] = [];
  let endpointName: string | null = null;
  if (typeof record.endpointName === 'string' && record.endpointName) {
    endpointName = record.endpointName;
  } else if (
    record.endpointName !== undefined &&
    record.endpointName !== null
  ) {
    problems.push(
      `the saved endpoint name ${JSON.stringify(record.endpointName)} is not a name; the default endpoint is used`
    );
  }
  let model: string | null = null;
  if (isModelId(record.model)) {
    model = record.model;
  } else if (record.model !== undefined && record.model !== null) {
    problems.push(
      `the saved model ${JSON.stringify(record.model)} is not a model id; the endpoint's default model is used`
    );
  }
  const entries: ChatEntry[] = [];
  record.entries.forEach((raw, index) => {
    try {
      entries.push(readEntry(raw));
    } catch (error) {
      problems.push(`entry ${index + 1} was left out: ${errorMessage(error)}`);
    }
  });
  const savedAt =
    typeof record.savedAt === 'number' && Number.isFinite(record.savedAt)
      ? record.savedAt
      : 0;
  let transportMemory: JsonObject | null = null;
  if (isObject(record.transportMemory)) {
    transportMemory = record.transportMemory;
  } else if (
    record.transportMemory !== undefined &&
    record.transportMemory !== null
  ) {
    problems.push(
      'the saved transport memory is not a JSON object; the conversation continues without it'
    );
  }
  return {
    snapshot: {
      version: 1,
      threadId: record.threadId,
      entries,
      endpointName,
      model,
      savedAt,
      transportMemory
    },
    problems
  };
}

/**
 * The later of the saved copy `a` and the unload copy `b` (by `savedAt`;
 * missing counts as oldest). A tie goes to `b`: it was written last.
 */
export function newer(a: unknown, b: unknown): unknown {
  if (a === undefined || a === null) {
    return b;
  }
  if (b === undefined || b === null) {
    return a;
  }
  return savedAtOf(b) >= savedAtOf(a) ? b : a;
}

function savedAtOf(value: unknown): number {
  const savedAt = (value as { savedAt?: unknown })?.savedAt;
  return typeof savedAt === 'number' ? savedAt : 0;
}
