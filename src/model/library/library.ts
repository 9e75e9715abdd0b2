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
  IEndpointSettings,
  IPanelSettings
} from '../../contracts/settings';
import type { IAgentThreads } from '../../transport/server/agent-threads';
import type {
  IConversationStore,
  IConversationSummary
} from '../../transport/server/conversation-store';
import { StoreUnavailableError } from '../../transport/server/conversation-store';
import { errorMessage } from '../../wire/json';
import { ChatModel } from '../conversation/chat-model';
import type { ClientToolRegistry } from '../conversation/chat/client-tools';
import {
  CONVERSATION_ID,
  ConversationSession,
  type ICurrentChange,
  storedStatus
} from '../conversation/session';
import { draftKey } from '../persistence/drafts';
import type { IStateStore } from '../persistence/persistence';
import {
  readConversation,
  readLegacyState,
  removeLegacyState,
  type IReadConversation
} from '../persistence/reading';
import {
  type ConversationSaver,
  sessionStorageOrNull,
  unloadKey,
  type ISaverOptions,
  type IUnloadStore
} from '../persistence/saver';
import { agentThreadSummaries, historyConversation } from './agent-threads';
import { LastShown } from './last-shown';
import { type IConversationItem, listItems, withSummaryOf } from './list-items';
import { LiveSessions } from './live-sessions';
import { checkMemory } from './memory-check';
import { OtherTabs } from './other-tabs';
import { restoredSession } from './restored-session';

/** What the library needs of the panel's service. */
export interface ILibraryHost {
  /** The conversation shown. */
  readonly current: ConversationSession;
  readonly currentChanged: ISignal<unknown, ICurrentChange>;
  show(session: ConversationSession): void;
  /** The client tools every conversation offers. */
  readonly clientTools: ClientToolRegistry;
  readonly settings: IPanelSettings;
  /** The endpoint of the conversation shown. */
  readonly endpoint: IEndpointSettings;
  readonly defaultEndpoint: IEndpointSettings;
  /** Notebook changes waiting for the user's review. */
  readonly changeReviews: { readonly pending: readonly unknown[] };
}

export interface ILibraryOptions {
  service: ILibraryHost;
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
    this._lastShown = new LastShown(options.state, this._unload);
    this._live = new LiveSessions({
      store: options.store,
      saver: options.saver,
      shown: () => options.service.current,
      changed: () => this._update(),
      unavailable: () => this._noteFailure(new StoreUnavailableError('', 404)),
      runsElsewhere: session => this._otherTabs.follow(session, -1),
      released: (session, saved) => {
        this._otherTabs.stopFollowing(session.id);
        if (saved) {
          // The list keeps what it showed until the next refresh.
          this._summaries = withSummaryOf(this._summaries, session);
        }
      }
    });
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
    this._live.adopt(initial, [], false);
    let open: string | null = null;
    if (state) {
      try {
        open = await this._migrate(state);
        open ??= await this._lastShown.read();
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
    this._live.adopt(session, [], false);
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
    const { service, store, trans } = this._options;
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
    const session = restoredSession(
      id,
      read,
      service.clientTools,
      trans,
      running
    );
    const saver = this._live.adopt(
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
    void checkMemory(session, {
      threads: this._options.threads,
      shown: this._options.service,
      trans: this._options.trans
    });
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
      this._live.release(live.session, false);
    }
    this._unload?.removeItem(unloadKey(id));
    this._unload?.removeItem(draftKey(id));
    this._lastShown.forget(id);
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
    this._live.dispose();
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
    const { service, trans } = this._options;
    const current = service.current;
    const id = CONVERSATION_ID.test(legacy.restore.threadId)
      ? legacy.restore.threadId
      : UUID.uuid4();
    const session = restoredSession(id, legacy, service.clientTools, trans);
    const saver = this._live.adopt(session, [], true);
    await saver.flush();
    if (saver.dirty) {
      // Not stored: keep the snapshot for the next load, show it from memory.
      service.show(session);
      throw new Error('the store did not take it');
    }
    await removeLegacyState(state, this._unload);
    if (current.model.entries.length === 0) {
      service.show(session);
    } else {
      this._live.release(session);
    }
    return id;
  }

  private _onCurrentChanged(_: unknown, change: ICurrentChange): void {
    this._live.adopt(change.current, [], false);
    this._live.releaseIfIdle(change.previous);
    this._update();
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

  /** The list: the store's summaries, with what the live sessions say now. */
  private _update(): void {
    if (this._isDisposed) {
      return;
    }
    const current = this._options.service.current;
    this._lastShown.note(current);
    this._items = listItems({
      summaries: this._summaries,
      remote: this._remote,
      live: this._live.all().map(l => l.session),
      current,
      query: this._query
    });
    this._changed.emit();
  }

  private readonly _options: ILibraryOptions;
  private readonly _unload: IUnloadStore | null;
  private readonly _live: LiveSessions;
  private readonly _lastShown: LastShown;
  private readonly _otherTabs: OtherTabs;
  private _summaries: IConversationSummary[] = [];
  /** The agents' threads the store lacks. */
  private _remote: IConversationSummary[] = [];
  private _items: IConversationItem[] = [];
  private _query = '';
  private _unavailable = false;
  private _isDisposed = false;
  private readonly _changed = new Signal<this, void>(this);
}
