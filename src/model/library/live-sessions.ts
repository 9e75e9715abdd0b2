/**
 * The conversations this tab holds live, each with its saver: the one
 * shown, and any other whose turn still runs. One left idle in the
 * background is saved one last time and released.
 */
import type { IDisposable } from '@lumino/disposable';
import { Signal } from '@lumino/signaling';
import type { IConversationStore } from '../../transport/server/conversation-store';
import type { ChatModel } from '../conversation/chat-model';
import type { ConversationSession } from '../conversation/session';
import { ConversationSaver, type ISaverOptions } from '../persistence/saver';

/** A conversation this tab holds: its session and its saver. */
export interface ILiveConversation {
  readonly session: ConversationSession;
  readonly saver: ConversationSaver;
}

export interface ILiveSessionsOptions {
  store: IConversationStore;
  saver?: ISaverOptions;
  /** The conversation the panel shows (never released). */
  shown: () => ConversationSession;
  /** A live conversation's title, entries or status changed. */
  changed: () => void;
  /** A saver found that the server keeps no conversations. */
  unavailable: () => void;
  /** Another tab or window answers in `session`. */
  runsElsewhere: (session: ConversationSession) => void;
  /** `session` is let go (`saved`: after one last save). */
  released: (session: ConversationSession, saved: boolean) => void;
}

export class LiveSessions implements IDisposable {
  constructor(private readonly _options: ILiveSessionsOptions) {}

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** The live conversation `id`, if this tab holds it. */
  get(id: string): ILiveConversation | undefined {
    return this._live.get(id);
  }

  /** The live conversations (a copy: releasing one does not disturb it). */
  all(): ILiveConversation[] {
    return [...this._live.values()];
  }

  /** Keep `session` live and saved. */
  adopt(
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
    session.titleChanged.connect(this._onChanged, this);
    session.model.statusChanged.connect(this._onStatus, this);
    session.model.entryAdded.connect(this._onChanged, this);
    session.model.runsElsewhere.connect(this._onRunsElsewhere, this);
    this._live.set(session.id, { session, saver });
    return saver;
  }

  /**
   * Save `session` one last time (unless `save` is false) and let it go,
   * unless it is shown again meanwhile.
   */
  release(session: ConversationSession, save = true): void {
    const live = this._live.get(session.id);
    if (!live || this._options.shown() === session) {
      return;
    }
    this._live.delete(session.id);
    session.titleChanged.disconnect(this._onChanged, this);
    session.model.statusChanged.disconnect(this._onStatus, this);
    session.model.entryAdded.disconnect(this._onChanged, this);
    session.model.runsElsewhere.disconnect(this._onRunsElsewhere, this);
    this._options.released(session, save);
    const { saver } = live;
    if (!save) {
      saver.dispose();
      session.dispose();
      return;
    }
    void saver.flush().then(() => {
      saver.dispose();
      session.dispose();
    });
  }

  /** A background conversation with nothing running is released. */
  releaseIfIdle(session: ConversationSession): void {
    if (
      !this._isDisposed &&
      session !== this._options.shown() &&
      session.model.status !== 'running'
    ) {
      this.release(session);
    }
  }

  /** Save each one a last time; the one shown belongs to the service, the others end. */
  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    const shown = this._options.shown();
    for (const { session, saver } of this._live.values()) {
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

  private _onChanged(): void {
    this._options.changed();
  }

  private _onStatus(): void {
    // After the queue had its chance to send its next message.
    setTimeout(() => {
      for (const { session } of this.all()) {
        this.releaseIfIdle(session);
      }
    }, 0);
    this._options.changed();
  }

  private _onRunsElsewhere(model: ChatModel): void {
    const live = this.all().find(l => l.session.model === model);
    if (live) {
      this._options.runsElsewhere(live.session);
    }
  }

  private _onUnavailable(): void {
    this._options.unavailable();
  }

  private readonly _live = new Map<string, ILiveConversation>();
  private _isDisposed = false;
}
