/**
 * Follows a conversation that another tab or window is answering in
 * (docs/protocol.md §13.7): reads it from the store every `intervalMs` and,
 * when that tab saved something new (it saves a streaming turn about once a
 * second), hands it over to be shown. It stops once the stored conversation
 * no longer runs, when it is gone, or when nothing new was saved for
 * `staleMs`: that tab went away mid-turn.
 */
import type { IDisposable } from '@lumino/disposable';
import type {
  IConversationStore,
  IStoredConversation
} from '../../transport/server/conversation-store';

/** Why a stored conversation is shown: it still runs, it ended, or its tab went away. */
export type FollowedState = 'running' | 'ended' | 'abandoned';

/**
 * How long a running conversation may go without a save before its tab is
 * taken as gone (a reload mid-turn): a streaming turn saves once a second.
 */
export const STALE_MS = 10000;

export interface IStoreFollowerOptions {
  intervalMs?: number;
  staleMs?: number;
}

export class StoreFollower implements IDisposable {
  /** `revision`: the stored revision already shown. */
  constructor(
    private readonly _store: Pick<IConversationStore, 'get' | 'getIfChanged'>,
    private readonly _id: string,
    revision: number,
    private readonly _show: (
      stored: IStoredConversation,
      state: FollowedState
    ) => void,
    options: IStoreFollowerOptions = {}
  ) {
    this._revision = revision;
    this._intervalMs = options.intervalMs ?? 1500;
    this._staleMs = options.staleMs ?? STALE_MS;
    this._changedAt = Date.now();
    this._schedule();
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    this._isDisposed = true;
    clearTimeout(this._timer);
  }

  private _schedule(): void {
    this._timer = setTimeout(() => void this._poll(), this._intervalMs);
  }

  private async _poll(): Promise<void> {
    let stored: IStoredConversation | 'unchanged' | null;
    try {
      // Unchanged: the store's one cheap answer, not the conversation.
      stored =
        this._revision < 0
          ? await this._store.get(this._id)
          : await this._store.getIfChanged(this._id, this._revision);
    } catch {
      // The store did not answer this time: ask again.
      if (!this._isDisposed) {
        this._schedule();
      }
      return;
    }
    if (this._isDisposed) {
      return;
    }
    if (stored === null) {
      this.dispose();
      return;
    }
    if (stored === 'unchanged') {
      this._staleCheck();
      return;
    }
    const running = stored.status === 'running';
    if (!running) {
      this._show(stored, 'ended');
      this.dispose();
      return;
    }
    if (stored.revision !== this._revision) {
      this._revision = stored.revision;
      this._changedAt = Date.now();
      this._show(stored, 'running');
    }
    this._staleCheck(stored);
  }

  /**
   * Nothing new for `staleMs`: the tab that ran the turn went away, and the
   * turn is shown as it was last saved (`stored`, read now if not given).
   */
  private _staleCheck(stored?: IStoredConversation): void {
    if (Date.now() - this._changedAt < this._staleMs) {
      this._schedule();
      return;
    }
    void (async () => {
      const last =
        stored ?? (await this._store.get(this._id).catch(() => null));
      if (this._isDisposed) {
        return;
      }
      if (last) {
        this._show(last, last.status === 'running' ? 'abandoned' : 'ended');
      }
      this.dispose();
    })();
  }

  private readonly _intervalMs: number;
  private readonly _staleMs: number;
  private _revision: number;
  private _changedAt: number;
  private _timer: ReturnType<typeof setTimeout> | undefined;
  private _isDisposed = false;
}
