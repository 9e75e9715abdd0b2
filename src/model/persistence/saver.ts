import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import type {
  ConversationStatus,
  IConversationStore,
  IConversationUpdate
} from '../../transport/server/conversation-store';
import { StoreUnavailableError } from '../../transport/server/conversation-store';
import type { JsonObject } from '../../wire/json';
import type { ChatModel } from '../conversation/chat-model';
import type { IBranchMove } from '../conversation/chat/branch-moves';
import type { ITurnUpdate, ChatEntry } from '../conversation/chat/chat-entries';
import {
  storedStatus,
  type ConversationSession
} from '../conversation/session';
import { snapshotOf, type IChatSnapshot } from './persistence';

/** The part of the Web Storage API the unload copy uses. */
export interface IUnloadStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** What the tab keeps of a conversation when the page goes away. */
export interface IUnloadCopy extends IChatSnapshot {
  title: string;
  queue: unknown[];
}

/** The sessionStorage key of conversation `id`'s unload copy. */
export function unloadKey(id: string): string {
  return `jupyterlab-agent-panel:conversation:${id}`;
}

export interface ISaverOptions {
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
 * Saves one conversation in the server's store: each save PUTs only what
 * changed since the last one (the entries by key, the status, title, model,
 * queue and transport memory), so a streaming turn re-sends its one entry per
 * save. Saves are throttled (O(1) per frame, one serialisation of the
 * changed entries per `saveDelayMs`); a status or queue change saves at
 * once. One save runs at a time; what fails is sent again with the next.
 *
 * Nothing async finishes once the page unloads, so on `pagehide`, when the
 * store lacks something (a change not sent yet, or a save under way), a
 * copy of the whole conversation goes to the tab's `sessionStorage`,
 * synchronously: a reload in the same tab gets the frames that arrived
 * after the last save (the newer of the two wins). Unloading cuts the turn's connection before
 * `pagehide`, and the turn ends as a failure ("network error"); so
 * `beforeunload` notes the running turn, and if it failed since, the copy
 * and the saves keep it running: the reload shows it "interrupted by a
 * page reload".
 *
 * A store that does not exist (a server without the routes) makes the
 * saver `unavailable`: the conversation stays in memory (and in the unload
 * copy), and the panel says so.
 */
export class ConversationSaver implements IDisposable {
  constructor(
    private readonly _session: ConversationSession,
    private readonly _store: IConversationStore,
    options: ISaverOptions = {}
  ) {
    this._delayMs = options.saveDelayMs ?? 1000;
    this._unloadStore =
      options.unloadStore === undefined
        ? sessionStorageOrNull()
        : options.unloadStore;
    this._page = options.page ?? window;
    const model = _session.model;
    this._page.addEventListener('beforeunload', this);
    this._page.addEventListener('pagehide', this);
    model.entryAdded.connect(this._onEntry, this);
    model.turnChanged.connect(this._onTurn, this);
    model.branchMoved.connect(this._onBranchMoved, this);
    model.cleared.connect(this._onCleared, this);
    model.endpointChanged.connect(this._schedule, this);
    model.chosenModelChanged.connect(this._schedule, this);
    model.statusChanged.connect(this._saveNow, this);
    _session.queue.changed.connect(this._onQueue, this);
    _session.titleChanged.connect(this._onTitle, this);
  }

  /**
   * Take the conversation as the store has it (`keys`: the entries it
   * holds); `everything`: the store has nothing yet, all is sent.
   */
  markStored(keys: Iterable<string>, everything = false, revision = 0): void {
    const { model } = this._session;
    this._stored = new Set(keys);
    this._revision = revision;
    this._memory = model.transportMemory;
    this._sent = {
      status: storedStatus(model.status),
      endpointName: model.endpointName,
      model: model.chosenModel
    };
    if (everything) {
      this._onCleared();
      this._queueDirty = true;
      this._titleDirty = true;
      this._memory = undefined;
      this._sent = null;
    }
  }

  /**
   * The model was just restored from the store as another tab saved it
   * (`keys`: the entries the store holds, at `revision`, with `title`):
   * none of it is to be sent back. `status`: the status the store holds,
   * when this tab is to correct it (a turn whose tab went away); else the
   * model's own is taken as saved.
   */
  tookStored(
    keys: Iterable<string>,
    revision: number,
    title: string,
    status?: ConversationStatus
  ): void {
    this.markStored(keys, false, revision);
    this._storedTitle = title;
    this._keys.clear();
    this._removed.clear();
    this._clearTimer();
    if (status !== undefined && this._sent) {
      this._sent = { ...this._sent, status };
      this._saveNow();
    }
  }

  /**
   * The store's revision of the conversation that this tab has (0: not
   * stored yet). It stays behind when another tab saved in between this
   * tab's saves, until this tab reads that (`tookStored`).
   */
  get revision(): number {
    return this._revision;
  }

  /** The server has no store: the conversation is kept in memory only. */
  get unavailable(): boolean {
    return this._unavailable;
  }

  /** `unavailable` changed. */
  get availabilityChanged(): ISignal<this, boolean> {
    return this._availabilityChanged;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Whether something waits to be saved. */
  get dirty(): boolean {
    const { model } = this._session;
    return (
      this._keys.size > 0 ||
      this._removed.size > 0 ||
      this._queueDirty ||
      this._titleDirty ||
      this._memory !== model.transportMemory ||
      this._sent?.status !== storedStatus(model.status) ||
      this._sent?.endpointName !== model.endpointName ||
      this._sent?.model !== model.chosenModel
    );
  }

  /** Save now (pending changes included); resolves when stored or failed. */
  async flush(): Promise<void> {
    this._clearTimer();
    if (this._saving) {
      this._again = true;
      return this._saving;
    }
    this._saving = this._save();
    try {
      await this._saving;
    } finally {
      this._saving = null;
    }
    if (this._again && !this._isDisposed) {
      this._again = false;
      await this.flush();
    }
  }

  /** `beforeunload`: note the running turn; `pagehide`: keep a copy. */
  handleEvent(event: Event): void {
    const model = this._session.model;
    if (event.type === 'beforeunload') {
      this._unloading = {
        at: Date.now(),
        turn: model.runningTurn?.key ?? null
      };
      return;
    }
    if (!this._unloadStore) {
      return;
    }
    if (!this.dirty && !this._saving) {
      // The store has it all: a copy would only look newer than it.
      this._unloadStore.removeItem(unloadKey(this._session.id));
      return;
    }
    try {
      this._unloadStore.setItem(
        unloadKey(this._session.id),
        this._unloadCopy()
      );
    } catch (error) {
      // Over the storage quota: the store's copy is all there is.
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
    this._clearResave();
    Signal.disconnectReceiver(this);
    Signal.clearData(this);
  }

  private _onEntry(_: ChatModel, entry: ChatEntry): void {
    this._keys.add(entry.key);
    this._schedule();
  }

  private _onTurn(_: ChatModel, update: ITurnUpdate): void {
    this._keys.add(update.entry.key);
    this._schedule();
  }

  /**
   * Another branch is shown: only what changed of `entries` is sent; the
   * `cleared` that follows replaced nothing.
   */
  private _onBranchMoved(_: ChatModel, { saved }: IBranchMove): void {
    saved.forEach(entry => this._keys.add(entry.key));
    this._branchMoving = true;
    this._schedule();
  }

  /** The entries were replaced: send them all, remove what is gone. */
  private _onCleared(): void {
    if (this._branchMoving) {
      this._branchMoving = false;
      return;
    }
    const keys = new Set(
      this._session.model.allEntries.map(entry => entry.key)
    );
    for (const key of this._stored) {
      if (!keys.has(key)) {
        this._removed.add(key);
      }
    }
    this._keys = keys;
    this._schedule();
  }

  private _onQueue(): void {
    this._queueDirty = true;
    this._saveNow();
  }

  private _onTitle(_: ConversationSession, title: string): void {
    // The title another tab saved, shown here: the store has it.
    if (title === this._storedTitle) {
      return;
    }
    this._titleDirty = true;
    this._saveNow();
  }

  private _schedule(): void {
    if (this._timer === null && !this._isDisposed) {
      this._timer = setTimeout(() => {
        this._timer = null;
        void this.flush();
      }, this._delayMs);
    }
  }

  private _saveNow(): void {
    if (!this._isDisposed) {
      void this.flush();
    }
  }

  private async _save(): Promise<void> {
    if (this._unavailable || !this.dirty) {
      return;
    }
    const { model, queue, title, id } = this._session;
    const byKey = new Map(model.allEntries.map(entry => [entry.key, entry]));
    const keys = [...this._keys].filter(key => byKey.has(key));
    const removed = [...this._removed];
    const memory = model.transportMemory;
    const update: IConversationUpdate = {
      threadId: model.threadId,
      endpointName: model.endpointName,
      status: storedStatus(model.status),
      // Entries are plain JSON-shaped data.
      entries: keys.map(
        key => this._asSaved(byKey.get(key)!) as unknown as JsonObject
      )
    };
    if (removed.length > 0) {
      update.removedKeys = removed;
    }
    if (this._titleDirty) {
      update.title = title;
    }
    if (this._queueDirty) {
      update.queue = [...queue.items];
    }
    if (memory !== this._memory) {
      update.transportMemory = memory;
    }
    // Optional in a save (docs/protocol.md §13.3): sent when it changed.
    if (model.chosenModel !== this._sent?.model) {
      update.model = model.chosenModel;
    }
    this._keys = new Set();
    this._removed = new Set();
    const queueDirty = this._queueDirty;
    const titleDirty = this._titleDirty;
    this._queueDirty = this._titleDirty = false;
    const previousMemory = this._memory;
    const previousSent = this._sent;
    this._memory = memory;
    this._sent = {
      status: update.status,
      endpointName: update.endpointName,
      model: model.chosenModel
    };
    try {
      const saved = await this._store.put(id, update);
      if (saved.revision === this._revision + 1) {
        this._revision = saved.revision;
      }
      if (update.title !== undefined) {
        this._storedTitle = update.title;
      }
      keys.forEach(key => this._stored.add(key));
      removed.forEach(key => this._stored.delete(key));
    } catch (error) {
      // Sent again with the next save.
      keys.forEach(key => this._keys.add(key));
      removed.forEach(key => this._removed.add(key));
      this._queueDirty ||= queueDirty;
      this._titleDirty ||= titleDirty;
      if (this._memory === memory) {
        this._memory = previousMemory;
        this._sent = previousSent;
      }
      if (error instanceof StoreUnavailableError) {
        this._unavailable = true;
        this._availabilityChanged.emit(true);
      }
      console.error('Agent Panel: could not save the conversation.', error);
    }
  }

  /** The conversation as JSON, the turn the unload cut still running. */
  private _unloadCopy(): string {
    const { model, title, queue } = this._session;
    const copy: IUnloadCopy = {
      ...snapshotOf(model),
      title,
      queue: [...queue.items]
    };
    copy.entries = copy.entries.map(entry => this._asSaved(entry));
    return JSON.stringify(copy);
  }

  /**
   * `entry` as it is saved: the turn the page's unload cut off (it failed
   * with "network error" after `beforeunload`) still running, so the reload
   * shows it interrupted by the reload rather than as a failure of the
   * agent. The model's entry stays as it is; if the page stays after all,
   * the turn is saved again as it is once the unload window has passed.
   */
  private _asSaved(entry: ChatEntry): ChatEntry {
    const unloading = this._unloading;
    if (
      !unloading?.turn ||
      // A beforeunload long ago was cancelled (the user stayed on the page).
      Date.now() - unloading.at > UNLOAD_WINDOW_MS ||
      entry.kind !== 'turn' ||
      entry.key !== unloading.turn ||
      entry.state.outcome !== 'error' ||
      (entry.endedAt ?? 0) < unloading.at
    ) {
      return entry;
    }
    if (this._resaveTimer === null) {
      this._resaveTimer = setTimeout(() => {
        this._resaveTimer = null;
        this._keys.add(entry.key);
        this._schedule();
      }, UNLOAD_WINDOW_MS);
    }
    return {
      ...entry,
      endedAt: null,
      state: { ...entry.state, outcome: null, error: null }
    };
  }

  private _clearTimer(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
  }

  private _clearResave(): void {
    if (this._resaveTimer !== null) {
      clearTimeout(this._resaveTimer);
      this._resaveTimer = null;
    }
  }

  private readonly _delayMs: number;
  private readonly _unloadStore: IUnloadStore | null;
  private readonly _page: EventTarget;
  /** The keys the store holds. */
  private _stored = new Set<string>();
  private _revision = 0;
  /** The title the store has, as far as this tab knows (null: not known). */
  private _storedTitle: string | null = null;
  /** Entries changed since the last save. */
  private _keys = new Set<string>();
  private _removed = new Set<string>();
  private _queueDirty = false;
  private _titleDirty = false;
  /** The status, endpoint and model last saved (null: never). */
  private _sent: {
    status: ConversationStatus;
    endpointName: string | null;
    model: string | null;
  } | null = null;
  /** The transport memory last saved (`undefined`: never). */
  private _memory: JsonObject | null | undefined = null;
  private _unloading: { at: number; turn: string | null } | null = null;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _resaveTimer: ReturnType<typeof setTimeout> | null = null;
  private _saving: Promise<void> | null = null;
  private _again = false;
  private _unavailable = false;
  /** A branch move's `cleared` is coming: it replaced no entry. */
  private _branchMoving = false;
  private _isDisposed = false;
  private readonly _availabilityChanged = new Signal<this, boolean>(this);
}

/** How long after `beforeunload` the page may still be going away. */
const UNLOAD_WINDOW_MS = 10000;

/** The tab's session storage, when the page may use it. */
export function sessionStorageOrNull(): IUnloadStore | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}
