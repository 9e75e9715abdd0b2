/** An in-memory conversation store with the server's semantics (upsert by key), for unit tests. */
import type {
  IConversationStore,
  IConversationSummary,
  IConversationUpdate,
  IStoredConversation
} from '../../transport/server/conversation-store';
import { StoreUnavailableError } from '../../transport/server/conversation-store';
import type { IStateStore } from '../../model/persistence/persistence';
import type { JsonObject } from '../../wire/json';

export class FakeConversationStore implements IConversationStore {
  /** Every PUT body, as JSON. */
  readonly puts: { id: string; update: IConversationUpdate }[] = [];
  /** Answer every request as a server without the routes would. */
  missing = false;
  /** Make the next PUTs fail (a server error). */
  failPuts = 0;
  /** The revision of every `getIfChanged`, in order. */
  readonly since: number[] = [];

  async list(query?: string): Promise<IConversationSummary[]> {
    this._check();
    const q = query?.toLowerCase();
    return [...this._rows.values()]
      .filter(
        row =>
          !q ||
          row.title.toLowerCase().includes(q) ||
          row.entries.some(e => JSON.stringify(e).toLowerCase().includes(q))
      )
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .map(summaryOf);
  }

  async get(id: string): Promise<IStoredConversation | null> {
    this._check();
    const row = this._rows.get(id);
    return row ? JSON.parse(JSON.stringify(row)) : null;
  }

  async getIfChanged(
    id: string,
    revision: number
  ): Promise<IStoredConversation | 'unchanged' | null> {
    this._check();
    this.since.push(revision);
    const row = this._rows.get(id);
    return row?.revision === revision ? 'unchanged' : this.get(id);
  }

  async put(id: string, update: IConversationUpdate) {
    this._check();
    if (this.failPuts > 0) {
      this.failPuts -= 1;
      throw new Error('500 from the store');
    }
    // What goes over the wire is JSON.
    update = JSON.parse(JSON.stringify(update));
    this.puts.push({ id, update });
    const now = ++this._clock;
    const row: IStoredConversation = this._rows.get(id) ?? {
      id,
      title: '',
      threadId: update.threadId,
      endpointName: null,
      model: null,
      status: 'idle',
      createdAt: now,
      updatedAt: now,
      revision: 0,
      entryCount: 0,
      entries: [],
      transportMemory: null,
      queue: []
    };
    row.threadId = update.threadId;
    row.endpointName = update.endpointName;
    row.status = update.status;
    if (update.title !== undefined) {
      row.title = update.title;
    }
    if (update.model !== undefined) {
      row.model = update.model;
    }
    for (const entry of update.entries ?? []) {
      const index = row.entries.findIndex(e => e.key === entry.key);
      if (index === -1) {
        row.entries.push(entry);
      } else {
        row.entries[index] = entry;
      }
    }
    const removed = new Set(update.removedKeys ?? []);
    row.entries = row.entries.filter(e => !removed.has(String(e.key)));
    if (update.transportMemory !== undefined) {
      row.transportMemory = update.transportMemory;
    }
    if (update.queue !== undefined) {
      row.queue = update.queue;
    }
    row.revision += 1;
    row.updatedAt = Date.now();
    row.entryCount = row.entries.length;
    this._rows.set(id, row);
    return { revision: row.revision, updatedAt: row.updatedAt };
  }

  async rename(id: string, title: string): Promise<IConversationSummary> {
    this._check();
    const row = this._rows.get(id);
    if (!row) {
      throw new Error('404 not_found');
    }
    row.title = title;
    return summaryOf(row);
  }

  async remove(id: string): Promise<void> {
    this._check();
    this._rows.delete(id);
  }

  entriesOf(id: string): JsonObject[] {
    return this._rows.get(id)?.entries ?? [];
  }

  has(id: string): boolean {
    return this._rows.has(id);
  }

  private _check(): void {
    if (this.missing) {
      throw new StoreUnavailableError('/agent-panel/conversations', 404);
    }
  }

  private _rows = new Map<string, IStoredConversation>();
  private _clock = 0;
}

function summaryOf(row: IStoredConversation): IConversationSummary {
  const { entries, transportMemory, queue, model, ...summary } = row;
  void entries;
  void transportMemory;
  void queue;
  void model;
  return { ...summary };
}

/** What IStateDB does: keep a JSON copy. */
export class MemoryState implements IStateStore {
  async fetch(id: string): Promise<unknown> {
    const value = this._values.get(id);
    return value === undefined ? undefined : JSON.parse(value);
  }
  async save(id: string, value: unknown): Promise<void> {
    this._values.set(id, JSON.stringify(value));
  }
  async remove(id: string): Promise<void> {
    this._values.delete(id);
  }
  has(id: string): boolean {
    return this._values.has(id);
  }
  private _values = new Map<string, string>();
}

/** What sessionStorage does. */
export class MemoryStorage {
  items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}
