import type { ReadonlyPartialJSONValue } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import type {
  IQueuedMessage,
  MessageQueue
} from '../conversation/message-queue';
import type { IStateStore } from './persistence';
import { errorMessage, isObject } from '../../wire/json';
import { readContext } from './snapshot-reader';

/** The IStateDB key the message queue is saved under (apart from the conversation). */
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
  const items: IQueuedMessage[] = [];
  const problems: string[] = [];
  record.items.forEach((raw, index) => {
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

/**
 * Keeps the message queue in a state store so it survives a page reload.
 * Queue changes are user actions (few): each is saved at once.
 */
export class QueuePersistence implements IDisposable {
  constructor(
    private readonly _queue: MessageQueue,
    private readonly _store: IStateStore,
    private readonly _key: string = QUEUE_STATE_KEY
  ) {}

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Put the saved queue back (when the queue is still empty), then save changes. */
  async start(): Promise<string[]> {
    let problems: string[] = [];
    try {
      const stored = await this._store.fetch(this._key);
      if (stored !== undefined && stored !== null && !this._isDisposed) {
        const read = readQueue(stored);
        problems = read.problems;
        if (this._queue.items.length === 0) {
          this._queue.restore(read.items);
        }
      }
    } catch (error) {
      problems.push(`the saved queue was not restored: ${errorMessage(error)}`);
    }
    if (!this._isDisposed) {
      this._queue.changed.connect(this._save, this);
    }
    return problems;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._queue.changed.disconnect(this._save, this);
  }

  private _save(): void {
    const snapshot: IQueueSnapshot = {
      version: 1,
      items: [...this._queue.items]
    };
    this._store
      .save(this._key, snapshot as unknown as ReadonlyPartialJSONValue)
      .catch(error => {
        console.error('Agent Panel: could not save the message queue.', error);
      });
  }

  private _isDisposed = false;
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
