import type { ReadonlyPartialJSONValue } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import type { ChatEntry, ChatModel } from '../conversation/chat-model';
import { errorMessage, isObject, type JsonObject } from '../../wire/json';
import { readEntry } from './snapshot-reader';

/** The IStateDB key the conversation is saved under. */
export const CHAT_STATE_KEY = 'jupyterlab-agent-panel:conversation';

/** What is saved: plain JSON, versioned so a later format can migrate. */
export interface IChatSnapshot {
  version: 1;
  threadId: string;
  entries: ChatEntry[];
  /** The conversation's endpoint (absent in older snapshots: the default). */
  endpointName?: string | null;
  /** When it was taken (ms since the epoch; absent in older snapshots). */
  savedAt?: number;
  /**
   * What the transport keeps of the conversation (AG-UI: the thread's
   * messages, state and open interrupts); absent in older snapshots.
   */
  transportMemory?: JsonObject | null;
}

/** The part of `IStateDB` the persistence uses. */
export interface IStateStore {
  fetch(id: string): Promise<unknown>;
  save(id: string, value: ReadonlyPartialJSONValue): Promise<unknown>;
}

export function snapshotOf(model: ChatModel): IChatSnapshot {
  return {
    version: 1,
    threadId: model.threadId,
    entries: [...model.entries],
    endpointName: model.endpointName,
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
      savedAt,
      transportMemory
    },
    problems
  };
}

/** The part of the Web Storage API the unload copy uses. */
export interface IUnloadStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export interface IChatPersistenceOptions {
  key?: string;
  /** Longest time a change waits before it is saved. */
  saveDelayMs?: number;
  /**
   * Where a copy is written synchronously when the page goes away (default:
   * the tab's `sessionStorage`; null: none).
   */
  unloadStore?: IUnloadStore | null;
  /** What fires `pagehide` (default: `window`). */
  page?: EventTarget;
}

/**
 * Keeps the conversation in a state store (JupyterLab's `IStateDB`, saved
 * with the workspace) so a page reload shows it again, pending review
 * included. Saves are throttled: a streaming turn costs O(1) per frame and
 * one serialisation per `saveDelayMs`; a status change saves at once.
 *
 * The workspace reaches the server later still (JupyterLab debounces it), and
 * nothing async finishes once the page unloads. So on `pagehide` a copy goes
 * to the tab's `sessionStorage`, synchronously: a reload in the same tab
 * restores the transcript up to the last frame received. The newer of the
 * two copies wins (another tab may have saved the workspace since).
 *
 * Unloading cuts the turn's connection before `pagehide`, and the turn ends
 * as a failure ("network error"). So `beforeunload` notes the running turn,
 * and if it failed since, the copy keeps it running: the reload shows it
 * "interrupted by a page reload", not as an error of the agent.
 */
export class ChatPersistence implements IDisposable {
  constructor(
    private readonly _model: ChatModel,
    private readonly _store: IStateStore,
    options: IChatPersistenceOptions = {}
  ) {
    this._key = options.key ?? CHAT_STATE_KEY;
    this._delayMs = options.saveDelayMs ?? 1000;
    this._unloadStore =
      options.unloadStore === undefined
        ? sessionStorageOrNull()
        : options.unloadStore;
    this._page = options.page ?? window;
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
      const stored = newer(
        await this._store.fetch(this._key),
        this._readUnloadCopy(problems)
      );
      if (stored !== undefined && stored !== null && this._canRestore()) {
        const read = readSnapshot(stored);
        problems = [...problems, ...read.problems];
        this._model.restore(read.snapshot);
      }
    } catch (error) {
      problems.push(
        `the saved conversation was not restored: ${errorMessage(error)}`
      );
    }
    if (!this._isDisposed) {
      this._page.addEventListener('beforeunload', this);
      this._page.addEventListener('pagehide', this);
      this._model.entryAdded.connect(this._onChange, this);
      this._model.turnChanged.connect(this._onChange, this);
      this._model.cleared.connect(this._onChange, this);
      this._model.endpointChanged.connect(this._onChange, this);
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

  /** `beforeunload`: note the running turn; `pagehide`: keep a copy. */
  handleEvent(event: Event): void {
    if (event.type === 'beforeunload') {
      this._unloading = {
        at: Date.now(),
        turn: this._model.runningTurn?.key ?? null
      };
      return;
    }
    if (!this._unloadStore) {
      return;
    }
    try {
      this._unloadStore.setItem(this._key, this._unloadCopy());
    } catch (error) {
      // Over the storage quota: the workspace copy is all there is.
      console.warn('Agent Panel: could not keep the conversation.', error);
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._page.removeEventListener('beforeunload', this);
    this._page.removeEventListener('pagehide', this);
    this._clearTimer();
    this._model.entryAdded.disconnect(this._onChange, this);
    this._model.turnChanged.disconnect(this._onChange, this);
    this._model.cleared.disconnect(this._onChange, this);
    this._model.endpointChanged.disconnect(this._onChange, this);
    this._model.statusChanged.disconnect(this._onStatus, this);
  }

  /** The snapshot as JSON, the turn the unload cut still running. */
  private _unloadCopy(): string {
    const text = JSON.stringify(snapshotOf(this._model));
    const unloading = this._unloading;
    // A beforeunload long ago was cancelled (the user stayed on the page).
    if (!unloading?.turn || Date.now() - unloading.at > UNLOAD_WINDOW_MS) {
      return text;
    }
    const copy = JSON.parse(text) as IChatSnapshot;
    const cut = copy.entries.find(
      entry =>
        entry.kind === 'turn' &&
        entry.key === unloading.turn &&
        entry.state.outcome === 'error' &&
        (entry.endedAt ?? 0) >= unloading.at
    );
    if (!cut || cut.kind !== 'turn') {
      return text;
    }
    cut.state.outcome = null;
    cut.state.error = null;
    cut.endedAt = null;
    return JSON.stringify(copy);
  }

  private _readUnloadCopy(problems: string[]): unknown {
    const text = this._unloadStore?.getItem(this._key) ?? null;
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
  private readonly _unloadStore: IUnloadStore | null;
  private readonly _page: EventTarget;
  private _unloading: { at: number; turn: string | null } | null = null;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _saving: Promise<void> | null = null;
  private _dirty = false;
  private _isDisposed = false;
}

/** How long after `beforeunload` the page may still be going away. */
const UNLOAD_WINDOW_MS = 10000;

/**
 * The later of the workspace copy `a` and the unload copy `b` (by `savedAt`;
 * missing counts as oldest). A tie goes to `b`: it was written last.
 */
function newer(a: unknown, b: unknown): unknown {
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

/** The tab's session storage, when the page may use it. */
function sessionStorageOrNull(): IUnloadStore | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}
