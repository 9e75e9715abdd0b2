/**
 * The library of conversations: every conversation is kept in the server's
 * store (per user), listed newest first, and can be opened, renamed or
 * deleted. **New** starts a conversation and keeps the old one. The
 * conversation shown, and any other whose turn still runs, are live
 * (`ConversationSession`: its model, queue and saver); one left idle in the
 * background is saved and released, and read from the store when opened.
 * A deployment's threads of the user's that the store lacks (begun on
 * another Jupyter server) are listed too, and read from the deployment
 * when opened (docs/protocol.md §15.5).
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { UUID } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import type {
  ConversationStatus,
  IConversationStore,
  IConversationSummary
} from '../../transport/server/conversation-store';
import { StoreUnavailableError } from '../../transport/server/conversation-store';
import type { IAgentThreads } from '../../transport/server/agent-threads';
import type { IEndpointSettings } from '../../contracts/settings';
import { errorMessage } from '../../wire/json';
import type { AgentPanelService, ICurrentChange } from '../agent-panel-service';
import { ChatModel, type ITurnEntry } from '../conversation/chat-model';
import { agentThreadSummaries, historyConversation } from './agent-threads';
import { draftKey } from '../persistence/drafts';
import type { IStateStore } from '../persistence/persistence';
import {
  readConversation,
  readLegacyState,
  removeLegacyState,
  type IReadConversation
} from '../persistence/reading';
import {
  ConversationSaver,
  sessionStorageOrNull,
  unloadKey,
  type ISaverOptions,
  type IUnloadStore
} from '../persistence/saver';
import {
  CONVERSATION_ID,
  ConversationSession,
  storedStatus,
  titleOf
} from './session';
import { type ILiveConversation, OtherTabs } from './other-tabs';

/** The IStateDB key of the conversation shown last (its id). */
export const LAST_SHOWN_KEY = 'jupyterlab-agent-panel:last-conversation';

/** A conversation as the list shows it. */
export interface IConversationItem {
  readonly id: string;
  /** The title; "" for a conversation without a message yet. */
  readonly title: string;
  readonly endpointName: string | null;
  readonly updatedAt: number;
  readonly status: ConversationStatus;
  /** The conversation the panel shows. */
  readonly current: boolean;
}

export interface ILibraryOptions {
  service: AgentPanelService;
  store: IConversationStore;
  /** The thread routes of this server's agents (memory check, delete, a deployment's threads). */
  threads: IAgentThreads | null;
  /** JupyterLab's state database: which conversation was shown, and the old snapshot. */
  state: IStateStore | null;
  trans: TranslationBundle;
  saver?: ISaverOptions;
  /** How often the conversation shown is checked for another tab's saves. */
  watchMs?: number;
}

export class ConversationLibrary implements IDisposable {
  constructor(options: ILibraryOptions) {
    this._options = options;
    this._unload =
      options.saver?.unloadStore === undefined
        ? sessionStorageOrNull()
        : options.saver.unloadStore;
    options.service.currentChanged.connect(this._onCurrentChanged, this);
    this._otherTabs = new OtherTabs({
      store: options.store,
      live: id => this._live.get(id),
      shown: () => options.service.current,
      reviewing: () => options.service.changeReviews.pending.length > 0,
      unavailable: () => this._unavailable,
      watchMs: options.watchMs
    });
  }

  /** The conversations, newest first (filtered by `query`). */
  get items(): readonly IConversationItem[] {
    return this._items;
  }

  /** The list, a conversation's status or title, or `unavailable` changed. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /** The server keeps no conversations: they live in this tab only. */
  get unavailable(): boolean {
    return this._unavailable;
  }

  /** The text the list is filtered by (the store searches titles and entries). */
  get query(): string {
    return this._query;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * Take the conversation the panel shows at start, move the old
   * `IStateDB` snapshot into the store (once), open the conversation shown
   * last, and list them. Resolves to what could not be read.
   */
  async start(): Promise<string[]> {
    const { service, state } = this._options;
    const problems: string[] = [];
    const initial = service.current;
    this._adopt(initial, [], false);
    let open: string | null = null;
    if (state) {
      try {
        open = await this._migrate(state);
        // A reload returns to what this tab showed; JupyterLab saves the
        // workspace (another tab's choice, or none yet) later.
        open ??=
          conversationId(this._unload?.getItem(LAST_SHOWN_KEY)) ??
          conversationId(await state.fetch(LAST_SHOWN_KEY));
      } catch (error) {
        problems.push(
          `the saved conversation was not moved to the server: ${errorMessage(error)}`
        );
      }
    }
    const current = service.current;
    if (open && open !== current.id && current.model.entries.length === 0) {
      try {
        // Unless the user moved on meanwhile (pressed New).
        problems.push(...(await this.open(open, initial)));
      } catch (error) {
        problems.push(
          `the last conversation was not opened: ${errorMessage(error)}`
        );
      }
    }
    await this.refresh();
    return problems;
  }

  /** Ask the store for the list again (filtered by `query`). */
  async refresh(query = this._query): Promise<void> {
    this._query = query;
    if (!this._unavailable) {
      try {
        this._summaries = await this._options.store.list(query || undefined);
      } catch (error) {
        this._noteFailure(error);
      }
    }
    this._update();
    if (this._options.threads) {
      // After the store's list is shown: a deployment may be slow to answer.
      this._remote = await agentThreadSummaries(
        this._options.threads,
        this._options.service.settings.endpoints,
        new Set(this._summaries.map(s => s.threadId))
      );
      this._update();
    }
  }

  /** Start a conversation and show it; the one shown is kept. */
  create(): ConversationSession {
    const { service, trans } = this._options;
    const model = new ChatModel(undefined, trans, service.clientTools);
    const session = new ConversationSession(model.threadId, model, trans);
    this._adopt(session, [], false);
    service.show(session);
    return session;
  }

  /**
   * Show conversation `id` (`instead`: only if that one is still shown
   * once it is read); resolves to what could not be read of it.
   */
  async open(id: string, instead?: ConversationSession): Promise<string[]> {
    const live = this._live.get(id);
    if (live) {
      this._options.service.show(live.session);
      return [];
    }
    const { store, trans } = this._options;
    let stored = null;
    if (!this._unavailable) {
      try {
        stored = await store.get(id);
      } catch (error) {
        this._noteFailure(error);
        if (!(error instanceof StoreUnavailableError)) {
          throw error;
        }
      }
    }
    const read =
      readConversation(stored, this._unload?.getItem(unloadKey(id)) ?? null) ??
      (await this._readAgentThread(id));
    if (!read) {
      throw new Error(trans.__('That conversation is no longer kept.'));
    }
    if (instead && this._options.service.current !== instead) {
      return read.problems;
    }
    const again = this._live.get(id);
    if (again) {
      // Opened meanwhile (a double click).
      this._options.service.show(again.session);
      return read.problems;
    }
    // Opened from the list while stored as running: another tab may be
    // answering in it, whose saves say so (its status is not this tab's to
    // overwrite). Reopened at load (`instead`), it is this tab's own turn
    // that the reload cut.
    const running =
      instead === undefined && stored?.status === 'running' && !read.sendAll;
    const session = this._sessionOf(id, read, running);
    const saver = this._adopt(
      session,
      read.storedKeys,
      read.sendAll,
      stored?.revision
    );
    if (
      !running &&
      (read.sendAll || stored?.status !== storedStatus(session.model.status))
    ) {
      void saver.flush().then(() => this._dropUnloadCopy(id, saver));
    } else {
      this._unload?.removeItem(unloadKey(id));
    }
    this._options.service.show(session);
    if (running && stored) {
      this._otherTabs.follow(session, stored.revision);
    }
    void this._checkMemory(session);
    return read.problems;
  }

  /** Give conversation `id` the title `title` ("" gives it back to its first message). */
  async rename(id: string, title: string): Promise<void> {
    const text = title.trim();
    const live = this._live.get(id)?.session;
    const remote = this._remote.find(s => s.id === id);
    if (live) {
      // Its saver sends the title (it may not be stored yet).
      live.title = text;
    } else if (remote) {
      this._remote = this._remote.map(s =>
        s === remote ? { ...s, title: text } : s
      );
    } else if (!this._unavailable) {
      const summary = await this._options.store.rename(id, text);
      this._summaries = this._summaries.map(s => (s.id === id ? summary : s));
    }
    this._update();
    const thread = this._threadOf(id);
    if (text && thread.endpoint && this._options.threads) {
      await this._options.threads.retitle(thread.endpoint, thread.id, text);
    }
  }

  /**
   * Delete conversation `id` from the store, and its thread from the
   * agent's memory when the agent is one of this server's. A running turn
   * of it is stopped; when it is the one shown, a new conversation is.
   */
  async remove(id: string): Promise<void> {
    const { service, store, threads } = this._options;
    const live = this._live.get(id);
    const thread = this._threadOf(id);
    if (live) {
      if (service.current === live.session) {
        this.create();
      }
      // Not saved again: a save after the delete would bring it back.
      this._release(live.session, false);
    }
    this._unload?.removeItem(unloadKey(id));
    this._unload?.removeItem(draftKey(id));
    if (this._noted === id) {
      // The next load must not look for it.
      this._noted = null;
      this._unload?.removeItem(LAST_SHOWN_KEY);
      void this._options.state?.remove(LAST_SHOWN_KEY);
    }
    this._summaries = this._summaries.filter(s => s.id !== id);
    this._remote = this._remote.filter(s => s.id !== id);
    this._update();
    if (!this._unavailable) {
      await store.remove(id);
    }
    if (threads && thread.endpoint && thread.id) {
      await threads.forget(thread.endpoint, thread.id);
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._otherTabs.dispose();
    const shown = this._options.service.current;
    for (const { session, saver } of this._live.values()) {
      // The one shown belongs to the service; the others end here.
      void saver.flush().then(() => {
        saver.dispose();
        if (session !== shown) {
          session.dispose();
        }
      });
    }
    this._live.clear();
    Signal.clearData(this);
  }

  /** Conversation `id`'s thread and the endpoint of its agent (none: a settings change removed it). */
  private _threadOf(id: string): {
    id: string;
    endpoint: IEndpointSettings | undefined;
  } {
    const { service } = this._options;
    const model = this._live.get(id)?.session.model;
    const summary = [...this._summaries, ...this._remote].find(
      s => s.id === id
    );
    const endpointName = model?.endpointName ?? summary?.endpointName ?? null;
    return {
      id: model?.threadId ?? summary?.threadId ?? '',
      endpoint: service.settings.endpoints.find(
        e => e.name === (endpointName ?? service.defaultEndpoint.name)
      )
    };
  }

  /** A listed thread of an agent's, read back from it; null when it is not one. */
  private async _readAgentThread(
    id: string
  ): Promise<IReadConversation | null> {
    const { threads } = this._options;
    const summary = this._remote.find(s => s.id === id);
    const { endpoint } = this._threadOf(id);
    if (!summary || !endpoint || !threads) {
      return null;
    }
    const history = await threads.history(endpoint, summary.threadId);
    return history && historyConversation(history, summary.endpointName);
  }

  /** Move the old `IStateDB` snapshot into the store; its id, if any. */
  private async _migrate(state: IStateStore): Promise<string | null> {
    const legacy = await readLegacyState(state, this._unload);
    if (!legacy) {
      return null;
    }
    const current = this._options.service.current;
    const id = CONVERSATION_ID.test(legacy.restore.threadId)
      ? legacy.restore.threadId
      : UUID.uuid4();
    const session = this._sessionOf(id, legacy);
    const saver = this._adopt(session, [], true);
    await saver.flush();
    if (saver.dirty) {
      // Not stored: keep the snapshot for the next load, show it from memory.
      this._options.service.show(session);
      throw new Error('the store did not take it');
    }
    await removeLegacyState(state, this._unload);
    if (current.model.entries.length === 0) {
      this._options.service.show(session);
    } else {
      this._release(session);
    }
    return id;
  }

  private _sessionOf(
    id: string,
    read: IReadConversation,
    runningElsewhere = false
  ): ConversationSession {
    const { service, trans } = this._options;
    const model = new ChatModel(
      read.restore.threadId || undefined,
      trans,
      service.clientTools
    );
    if (read.restore.entries.length > 0 || read.restore.threadId) {
      model.restore({
        ...read.restore,
        threadId: model.threadId,
        runningElsewhere
      });
    }
    const first = model.entries.find(entry => entry.kind === 'user');
    const title =
      read.title || (first?.kind === 'user' ? titleOf(first.text) : '');
    const session = new ConversationSession(id, model, trans, title);
    if (read.queue.length > 0) {
      session.queue.restore(read.queue);
    }
    return session;
  }

  /** Keep `session` live and saved. */
  private _adopt(
    session: ConversationSession,
    storedKeys: string[],
    sendAll: boolean,
    revision = 0
  ): ConversationSaver {
    const existing = this._live.get(session.id);
    if (existing) {
      return existing.saver;
    }
    const saver = new ConversationSaver(
      session,
      this._options.store,
      this._options.saver
    );
    saver.markStored(storedKeys, sendAll, revision);
    saver.availabilityChanged.connect(this._onUnavailable, this);
    session.titleChanged.connect(this._update, this);
    session.model.statusChanged.connect(this._onStatus, this);
    session.model.entryAdded.connect(this._update, this);
    session.model.runsElsewhere.connect(this._onRunsElsewhere, this);
    this._live.set(session.id, { session, saver });
    return saver;
  }

  /** Save `session` one last time and let it go (unless shown again meanwhile). */
  private _release(session: ConversationSession, save = true): void {
    const live = this._live.get(session.id);
    if (!live || this._options.service.current === session) {
      return;
    }
    this._live.delete(session.id);
    session.titleChanged.disconnect(this._update, this);
    session.model.statusChanged.disconnect(this._onStatus, this);
    session.model.entryAdded.disconnect(this._update, this);
    session.model.runsElsewhere.disconnect(this._onRunsElsewhere, this);
    this._otherTabs.stopFollowing(session.id);
    const { saver } = live;
    if (!save) {
      saver.dispose();
      session.dispose();
      return;
    }
    this._keepSummary(session);
    void saver.flush().then(() => {
      saver.dispose();
      session.dispose();
    });
  }

  /** The list keeps what it showed of a released session until the next refresh. */
  private _keepSummary(session: ConversationSession): void {
    const { model } = session;
    if (model.entries.length === 0) {
      return;
    }
    const summary: IConversationSummary = {
      ...(this._summaries.find(s => s.id === session.id) ?? {
        id: session.id,
        createdAt: Date.now(),
        revision: 0
      }),
      title: session.title,
      threadId: model.threadId,
      endpointName: model.endpointName,
      status: storedStatus(model.status),
      updatedAt: session.lastActivity,
      entryCount: model.entries.length
    };
    this._summaries = [
      summary,
      ...this._summaries.filter(s => s.id !== session.id)
    ];
  }

  private _onCurrentChanged(
    _: AgentPanelService,
    change: ICurrentChange
  ): void {
    this._adopt(change.current, [], false);
    this._releaseIfIdle(change.previous);
    this._update();
  }

  /**
   * Another tab or window answers in this conversation (its turn cannot be
   * streamed here): show it from the store as that tab saves it, until it
   * ends (docs/protocol.md §13.7).
   */
  private _onRunsElsewhere(model: ChatModel): void {
    const live = [...this._live.values()].find(l => l.session.model === model);
    if (live) {
      this._otherTabs.follow(live.session, -1);
    }
  }

  private _onStatus(): void {
    // After the queue had its chance to send its next message.
    setTimeout(() => {
      for (const { session } of [...this._live.values()]) {
        this._releaseIfIdle(session);
      }
    }, 0);
    this._update();
  }

  /** A background conversation with nothing running is released. */
  private _releaseIfIdle(session: ConversationSession): void {
    if (
      !this._isDisposed &&
      session !== this._options.service.current &&
      session.model.status !== 'running'
    ) {
      this._release(session);
    }
  }

  /**
   * Opening a conversation with turns: say so when its agent no longer
   * remembers it (a kernel restarted, a server's checkpointer lost it).
   */
  private async _checkMemory(session: ConversationSession): Promise<void> {
    const { model } = session;
    const last = [...model.entries]
      .reverse()
      .find((entry): entry is ITurnEntry => entry.kind === 'turn');
    if (!last) {
      return;
    }
    const { service, threads, trans } = this._options;
    let known: boolean | null = null;
    try {
      if (model.transport?.threadMemory) {
        known = await model.transport.threadMemory({
          threadId: model.threadId,
          memory: model.transportMemory,
          lastTurnAt: last.endedAt ?? last.startedAt
        });
      } else if (threads && service.current === session) {
        known = await threads.known(service.endpoint, model.threadId);
      }
    } catch (error) {
      console.warn(
        `Agent Panel: could not ask the agent about the conversation: ${errorMessage(error)}`
      );
    }
    if (known === false && !session.isDisposed) {
      session.notice = trans.__(
        'The agent no longer remembers this conversation: its next message starts afresh (the transcript stays here).'
      );
    }
  }

  private _onUnavailable(): void {
    this._noteFailure(new StoreUnavailableError('', 404));
  }

  private _noteFailure(error: unknown): void {
    if (error instanceof StoreUnavailableError) {
      if (!this._unavailable) {
        this._unavailable = true;
        this._update();
      }
      return;
    }
    console.error('Agent Panel: the conversation store failed.', error);
  }

  private _dropUnloadCopy(id: string, saver: ConversationSaver): void {
    if (!saver.dirty && !saver.unavailable) {
      this._unload?.removeItem(unloadKey(id));
    }
  }

  /**
   * Remember the conversation shown, for the next load; an empty one is
   * not kept, so the one before it opens then.
   */
  private _noteShown(current: ConversationSession): void {
    const { state } = this._options;
    if (
      !state ||
      this._noted === current.id ||
      current.model.entries.length === 0
    ) {
      return;
    }
    this._noted = current.id;
    try {
      this._unload?.setItem(LAST_SHOWN_KEY, current.id);
    } catch {
      // Over the tab's storage quota: the workspace copy is all there is.
    }
    state
      .save(LAST_SHOWN_KEY, current.id)
      .catch(error =>
        console.warn(
          'Agent Panel: could not note the conversation shown.',
          error
        )
      );
  }

  /** The list: the store's summaries, with what the live sessions say now. */
  private _update(): void {
    if (this._isDisposed) {
      return;
    }
    const current = this._options.service.current;
    this._noteShown(current);
    const query = this._query.toLowerCase();
    const byId = new Map<string, IConversationItem>();
    // The store filtered its own; the agents' threads are filtered by title here.
    const remote = this._remote.filter(s =>
      s.title.toLowerCase().includes(query)
    );
    for (const summary of [...this._summaries, ...remote]) {
      byId.set(summary.id, { ...summary, current: summary.id === current.id });
    }
    for (const { session } of this._live.values()) {
      const shown = session === current;
      const listed = byId.has(session.id);
      const matches = !query || session.title.toLowerCase().includes(query);
      // The one shown is listed even before its first message, unless filtered out.
      const empty = session.model.entries.length === 0;
      if (!listed && (!matches || (empty && !shown))) {
        continue;
      }
      const model = session.model;
      byId.set(session.id, {
        id: session.id,
        title: session.title,
        endpointName: model.endpointName,
        updatedAt: Math.max(
          session.lastActivity,
          byId.get(session.id)?.updatedAt ?? 0
        ),
        status: storedStatus(model.status),
        current: shown
      });
    }
    this._items = [...byId.values()].sort((a, b) => b.updatedAt - a.updatedAt);
    this._changed.emit();
  }

  private readonly _options: ILibraryOptions;
  private readonly _unload: IUnloadStore | null;
  private readonly _live = new Map<string, ILiveConversation>();
  private readonly _otherTabs: OtherTabs;
  private _summaries: IConversationSummary[] = [];
  /** The agents' threads the store lacks. */
  private _remote: IConversationSummary[] = [];
  private _items: IConversationItem[] = [];
  private _query = '';
  private _noted: string | null = null;
  private _unavailable = false;
  private _isDisposed = false;
  private readonly _changed = new Signal<this, void>(this);
}

/** `value` when it is a conversation id, else null. */
function conversationId(value: unknown): string | null {
  return typeof value === 'string' && CONVERSATION_ID.test(value)
    ? value
    : null;
}
