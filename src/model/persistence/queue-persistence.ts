/** Reading a saved message queue (the store's `queue`, or the old IStateDB copy). */
import type { IQueuedMessage } from '../conversation/message-queue';
import { errorMessage, isObject } from '../../wire/json';
import { readContext } from './snapshot-reader';

/** The IStateDB key the message queue was saved under before the store. */
export const QUEUE_STATE_KEY = 'jupyterlab-agent-panel:queue';

export interface IQueueSnapshot {
  version: 1;
  items: IQueuedMessage[];
}

/**
 * Read a saved queue. What is not a queue throws, naming what is wrong; an
 * unreadable message is left out and reported, the others are kept.
 */
export function readQueue(value: unknown): {
  items: IQueuedMessage[];
  problems: string[];
} {
  if (!isObject(value)) {
    throw new Error('the saved queue is not a JSON object');
  }
  const record = value;
  if (record.version !== 1) {
    throw new Error(
      `the saved queue has version ${JSON.stringify(record.version)}, expected 1`
    );
  }
  if (!Array.isArray(record.items)) {
    throw new Error('the saved queue has no list of items');
  }
  return readQueueItems(record.items);
}

/** The readable messages of a saved queue, and what was left out. */
export function readQueueItems(list: readonly unknown[]): {
  items: IQueuedMessage[];
  problems: string[];
} {
  const items: IQueuedMessage[] = [];
  const problems: string[] = [];
  list.forEach((raw, index) => {
    try {
      items.push(readItem(raw));
    } catch (error) {
      problems.push(
        `queued message ${index + 1} was left out: ${errorMessage(error)}`
      );
    }
  });
  return { items, problems };
}

function readItem(raw: unknown): IQueuedMessage {
  if (!isObject(raw)) {
    throw new Error('it is not an object');
  }
  const item = raw;
  if (typeof item.id !== 'string' || !item.id) {
    throw new Error('id is not a string');
  }
  if (typeof item.text !== 'string' || !item.text.trim()) {
    throw new Error('text is not a non-empty string');
  }
  if (typeof item.queuedAt !== 'number' || !Number.isFinite(item.queuedAt)) {
    throw new Error('queuedAt is not a number');
  }
  return {
    id: item.id,
    text: item.text,
    context:
      item.context === null || item.context === undefined
        ? null
        : readContext(item.context, 'context'),
    queuedAt: item.queuedAt
  };
}
