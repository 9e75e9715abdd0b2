/**
 * One live conversation: its model, its message queue and its title. The
 * panel shows one session at a time; another stays alive while its turn
 * runs (its frames keep landing in its own model) and is released once idle.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import type { ChatModel } from './chat-model';
import type { ChatEntry } from './chat/chat-entries';
import type { ChatStatus } from './chat/chat-status';
import { MessageQueue } from './message-queue';
import type { ConversationStatus } from '../../transport/server/conversation-store';

/** A conversation id: what the store accepts (`[A-Za-z0-9_-]{1,64}`). */
export const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The panel shows `current` instead of `previous`. */
export interface ICurrentChange {
  current: ConversationSession;
  previous: ConversationSession;
}

export class ConversationSession implements IDisposable {
  constructor(
    readonly id: string,
    readonly model: ChatModel,
    trans: TranslationBundle,
    title = ''
  ) {
    if (!CONVERSATION_ID.test(id)) {
      throw new Error(`"${id}" is not a conversation id`);
    }
    this.queue = new MessageQueue(model, trans);
    this._title = title;
    model.entryAdded.connect(this._onEntry, this);
  }

  /** Messages typed while the agent works, sent as turns complete. */
  readonly queue: MessageQueue;

  /** The title the user gave, or "" (the list then shows the first message). */
  get title(): string {
    return this._title;
  }

  set title(title: string) {
    if (title !== this._title) {
      this._title = title;
      this._titleChanged.emit(title);
    }
  }

  get titleChanged(): ISignal<this, string> {
    return this._titleChanged;
  }

  /**
   * What the panel says about this conversation above its transcript (the
   * agent no longer remembers it), or null.
   */
  get notice(): string | null {
    return this._notice;
  }

  set notice(notice: string | null) {
    if (notice !== this._notice) {
      this._notice = notice;
      this._noticeChanged.emit(notice);
    }
  }

  get noticeChanged(): ISignal<this, string | null> {
    return this._noticeChanged;
  }

  /** When it last changed: its last entry, or now while a turn runs. */
  get lastActivity(): number {
    const model = this.model;
    if (model.status === 'running') {
      return Date.now();
    }
    const last = model.entries[model.entries.length - 1];
    return !last
      ? 0
      : last.kind === 'user'
        ? last.time
        : (last.endedAt ?? last.startedAt);
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this.model.entryAdded.disconnect(this._onEntry, this);
    this.queue.dispose();
    this.model.transport?.dispose();
    this.model.transport = null;
    this.model.dispose();
    Signal.clearData(this);
  }

  /** Untitled: the first message gives the title. */
  private _onEntry(_: ChatModel, entry: ChatEntry): void {
    if (!this._title && entry.kind === 'user') {
      this.title = titleOf(entry.text);
    }
  }

  private _title: string;
  private _notice: string | null = null;
  private _isDisposed = false;
  private readonly _titleChanged = new Signal<this, string>(this);
  private readonly _noticeChanged = new Signal<this, string | null>(this);
}

/** A title from a message: its first line, at most `TITLE_CHARS` characters. */
export function titleOf(text: string): string {
  const line = text.trim().split('\n', 1)[0].trim();
  return line.length > TITLE_CHARS
    ? `${line.slice(0, TITLE_CHARS - 1)}…`
    : line;
}

const TITLE_CHARS = 80;

/** The store's word for a model's status. */
export function storedStatus(status: ChatStatus): ConversationStatus {
  return status === 'running'
    ? 'running'
    : status === 'awaiting-decision'
      ? 'review'
      : 'idle';
}
