/**
 * What other tabs and windows do to this tab's conversations, read from the
 * store (docs/protocol.md §13.7): a conversation another tab answers in is
 * followed as that tab saves it (`StoreFollower`), and the conversation
 * shown, while this tab has nothing of its own under way or unsaved, is
 * checked every `watchMs` for another tab's saves (one cheap answer while
 * nothing changed) and shown as they left it.
 */
import type { IDisposable } from '@lumino/disposable';
import { Poll } from '@lumino/polling';
import type {
  IConversationStore,
  IStoredConversation
} from '../../transport/server/conversation-store';
import { readConversation } from '../persistence/reading';
import type { ConversationSession } from '../conversation/session';
import type { ILiveConversation } from './live-sessions';
import { type FollowedState, StoreFollower } from './store-follower';

/** How often the conversation shown is checked for another tab's saves. */
export const WATCH_MS = 3000;

export interface IOtherTabsOptions {
  store: Pick<IConversationStore, 'get' | 'getIfChanged'>;
  /** The live conversation `id`, if this tab holds it. */
  live: (id: string) => ILiveConversation | undefined;
  /** The conversation the panel shows. */
  shown: () => ConversationSession;
  /** This tab shows a notebook change for review (its answer is this tab's own). */
  reviewing: () => boolean;
  /** The store cannot be used. */
  unavailable: () => boolean;
  watchMs?: number;
}

export class OtherTabs implements IDisposable {
  constructor(private readonly _options: IOtherTabsOptions) {
    this._watch = new Poll({
      factory: () => this._checkShown(),
      frequency: {
        interval: _options.watchMs ?? WATCH_MS,
        backoff: true,
        max: 60_000
      },
      // A tab in the background has no one to show it to.
      standby: 'when-hidden',
      name: 'jupyterlab-agent-panel:other-tabs'
    });
  }

  get isDisposed(): boolean {
    return this._watch.isDisposed;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._watch.dispose();
    for (const id of [...this._followers.keys()]) {
      this.stopFollowing(id);
    }
  }

  /** Follow `session` in the store from its stored `revision` (-1: show it at once). */
  follow(session: ConversationSession, revision: number): void {
    if (this._followers.has(session.id) || this._options.unavailable()) {
      return;
    }
    this._followers.set(
      session.id,
      new StoreFollower(
        this._options.store,
        session.id,
        revision,
        (stored, state) => this._show(session, stored, state)
      )
    );
  }

  stopFollowing(id: string): void {
    this._followers.get(id)?.dispose();
    this._followers.delete(id);
  }

  /**
   * Another tab saved the conversation shown since this tab last had it:
   * show what it saved, and follow a turn it still runs.
   */
  private async _checkShown(): Promise<void> {
    const session = this._options.shown();
    const live = this._options.live(session.id);
    if (
      !live ||
      live.saver.revision === 0 ||
      this._followers.has(session.id) ||
      this._options.unavailable() ||
      !this._quiet(live)
    ) {
      return;
    }
    const known = live.saver.revision;
    const stored = await this._options.store.getIfChanged(session.id, known);
    // Gone (deleted in another tab): this tab keeps what it shows.
    if (
      stored === 'unchanged' ||
      stored === null ||
      live.saver.revision !== known ||
      this._options.shown() !== session
    ) {
      return;
    }
    if (stored.status === 'running') {
      this._show(session, stored, 'running');
      this.follow(session, stored.revision);
    } else {
      this._show(session, stored, 'ended');
    }
  }

  /** Nothing of this tab's own runs, waits for this tab's answer, or waits to be saved. */
  private _quiet({ session, saver }: ILiveConversation): boolean {
    const { status } = session.model;
    return (
      !saver.dirty &&
      (status === 'idle' ||
        (status === 'awaiting-decision' &&
          (session !== this._options.shown() || !this._options.reviewing())))
    );
  }

  private _show(
    session: ConversationSession,
    stored: IStoredConversation,
    state: FollowedState
  ): void {
    const live = this._options.live(session.id);
    // Something of this tab's own (a message sent meanwhile) is not replaced.
    if (!live || live.session !== session || !this._quiet(live)) {
      this.stopFollowing(session.id);
      return;
    }
    const read = readConversation(stored, null);
    if (!read) {
      return;
    }
    session.model.restore({
      ...read.restore,
      threadId: session.model.threadId,
      runningElsewhere: state === 'running',
      fromAnotherTab: true
    });
    // A turn whose tab went away is not running: the store is told so.
    live.saver.tookStored(
      read.storedKeys,
      stored.revision,
      read.title,
      state === 'abandoned' ? stored.status : undefined
    );
    if (read.title) {
      session.title = read.title;
    }
    if (state !== 'running') {
      this.stopFollowing(session.id);
    }
  }

  private readonly _watch: Poll;
  /** The conversations another tab answers in, followed in the store. */
  private readonly _followers = new Map<string, StoreFollower>();
}
