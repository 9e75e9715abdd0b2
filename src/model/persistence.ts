import type { ReadonlyPartialJSONValue } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import type { ChatEntry, ChatModel } from './chat-model';
import { readEntry } from './snapshot-reader';

/** The IStateDB key the conversation is saved under. */
export const CHAT_STATE_KEY = 'jupyterlab-agent-panel:conversation';

/** What is saved: plain JSON, versioned so a later format can migrate. */
export interface IChatSnapshot {
  version: 1;
  threadId: string;
  entries: ChatEntry[];
}

/** The part of `IStateDB` the persistence uses. */
export interface IStateStore {
  fetch(id: string): Promise<unknown>;
  save(id: string, value: ReadonlyPartialJSONValue): Promise<unknown>;
}

export function snapshotOf(model: ChatModel): IChatSnapshot {
  return { version: 1, threadId: model.threadId, entries: [...model.entries] };
}

/**
 * Read a stored snapshot. A snapshot that is not one throws, naming what is
 * wrong; an unreadable entry is left out and reported, the others are kept.
 */
export function readSnapshot(value: unknown): {
  snapshot: IChatSnapshot;
  problems: string[];
} {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error('the saved conversation is not a JSON object');
  }
  const record = value as Record<string, unknown>;
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
  const entries: ChatEntry[] = [];
  record.entries.forEach((raw, index) => {
    try {
      entries.push(readEntry(raw));
    } catch (error) {
      problems.push(`entry ${index + 1} was left out: ${messageOf(error)}`);
    }
  });
  return {
    snapshot: { version: 1, threadId: record.threadId, entries },
    problems
  };
}

export interface IChatPersistenceOptions {
  key?: string;
  /** Longest time a change waits before it is saved. */
  saveDelayMs?: number;
}

/**
 * Keeps the conversation in a state store (JupyterLab's `IStateDB`, saved
 * with the workspace) so a page reload shows it again, pending review
 * included. Saves are throttled: a streaming turn costs O(1) per frame and
 * one serialisation per `saveDelayMs`; a status change saves at once.
 */
export class ChatPersistence implements IDisposable {
  constructor(
    private readonly _model: ChatModel,
    private readonly _store: IStateStore,
    options: IChatPersistenceOptions = {}
  ) {
    this._key = options.key ?? CHAT_STATE_KEY;
    this._delayMs = options.saveDelayMs ?? 1000;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * Restore the saved conversation into the model (when the model is still
   * empty), then save every later change. Returns what could not be read.
   */
  async start(): Promise<string[]> {
    let problems: string[] = [];
    try {
      const stored = await this._store.fetch(this._key);
      if (stored !== undefined && stored !== null && this._canRestore()) {
        const read = readSnapshot(stored);
        problems = read.problems;
        this._model.restore(read.snapshot);
      }
    } catch (error) {
      problems.push(
        `the saved conversation was not restored: ${messageOf(error)}`
      );
    }
    if (!this._isDisposed) {
      this._model.entryAdded.connect(this._onChange, this);
      this._model.turnChanged.connect(this._onChange, this);
      this._model.cleared.connect(this._onChange, this);
      this._model.statusChanged.connect(this._onStatus, this);
    }
    return problems;
  }

  /** Save now (pending changes included); resolves when stored. */
  async flush(): Promise<void> {
    this._clearTimer();
    if (this._saving) {
      this._dirty = true;
      return this._saving;
    }
    this._saving = this._save();
    try {
      await this._saving;
    } finally {
      this._saving = null;
    }
    if (this._dirty && !this._isDisposed) {
      this._dirty = false;
      await this.flush();
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._clearTimer();
    this._model.entryAdded.disconnect(this._onChange, this);
    this._model.turnChanged.disconnect(this._onChange, this);
    this._model.cleared.disconnect(this._onChange, this);
    this._model.statusChanged.disconnect(this._onStatus, this);
  }

  private _canRestore(): boolean {
    return (
      !this._isDisposed &&
      this._model.entries.length === 0 &&
      this._model.status === 'idle'
    );
  }

  private _onChange(): void {
    if (this._timer === null && !this._isDisposed) {
      this._timer = setTimeout(() => {
        this._timer = null;
        void this.flush();
      }, this._delayMs);
    }
  }

  private _onStatus(): void {
    if (!this._isDisposed) {
      void this.flush();
    }
  }

  private async _save(): Promise<void> {
    try {
      // The store serialises to JSON; entries are plain JSON-shaped data.
      const snapshot = snapshotOf(this._model);
      await this._store.save(
        this._key,
        snapshot as unknown as ReadonlyPartialJSONValue
      );
    } catch (error) {
      console.error('Agent Panel: could not save the conversation.', error);
    }
  }

  private _clearTimer(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
  }

  private readonly _key: string;
  private readonly _delayMs: number;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _saving: Promise<void> | null = null;
  private _dirty = false;
  private _isDisposed = false;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
