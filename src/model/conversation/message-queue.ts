import type { TranslationBundle } from '@jupyterlab/translation';
import { UUID } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import { errorMessage } from '../../wire/json';
import type { ITurnContext } from '../../wire/turn';
import type { ChatModel } from './chat-model';
import type { ChatStatus } from './chat/chat-status';
import { panelStrings } from '../../contracts/translation';

/** A message waiting for the agent to be free. */
export interface IQueuedMessage {
  readonly id: string;
  readonly text: string;
  /** The context captured when it was queued: what the user saw then. */
  readonly context: ITurnContext | null;
  readonly queuedAt: number;
}

/**
 * Why the queue does not move on by itself:
 * - `none`: the next message goes when a turn ends with `complete`;
 * - `review`: an interrupt waits for a decision; the queue moves on once the
 *   review's resume completes;
 * - `error` / `stopped`: the last turn failed or was stopped; the queue waits
 *   until the user sends it on (`resume`) or clears it;
 * - `paused`: the conversation was reloaded or replaced; same as `stopped`.
 */
export type QueueHold = 'none' | 'review' | 'error' | 'stopped' | 'paused';

/**
 * Messages typed while the agent works, sent in order as turns complete.
 * The model still refuses a message while a turn runs; the panel submits
 * through the queue instead.
 */
export class MessageQueue implements IDisposable {
  constructor(
    private readonly _model: ChatModel,
    trans: TranslationBundle = panelStrings()
  ) {
    this._trans = trans;
    _model.statusChanged.connect(this._onStatus, this);
    _model.cleared.connect(this._onCleared, this);
  }

  get items(): readonly IQueuedMessage[] {
    return this._items;
  }

  get hold(): QueueHold {
    return this._hold;
  }

  /** Why the last attempt to send the head of the queue failed, if it did. */
  get problem(): string | null {
    return this._problem;
  }

  /** The items, the hold or the problem changed. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * Send `text` now when the agent is free and nothing queued goes first;
   * queue it otherwise. A refusal of the model (no endpoint) is thrown.
   */
  submit(text: string, context: ITurnContext | null): 'sent' | 'queued' {
    this._assertText(text);
    const queueGoesFirst = this._items.length > 0 && this._hold === 'none';
    if (this._model.status !== 'idle' || queueGoesFirst) {
      this.add(text, context);
      return 'queued';
    }
    this._model.send(text, context ?? undefined);
    return 'sent';
  }

  add(text: string, context: ITurnContext | null): IQueuedMessage {
    this._assertText(text);
    const item: IQueuedMessage = {
      id: UUID.uuid4(),
      text,
      context,
      queuedAt: Date.now()
    };
    this._items = [...this._items, item];
    if (this._model.status === 'awaiting-decision' && this._hold === 'none') {
      this._hold = 'review';
    }
    this._changed.emit();
    return item;
  }

  /** Replace the text of a queued message (its context stays). */
  edit(id: string, text: string): void {
    this._assertText(text);
    const index = this._indexOf(id);
    this._items = this._items.map((item, i) =>
      i === index ? { ...item, text } : item
    );
    this._changed.emit();
  }

  remove(id: string): void {
    const index = this._indexOf(id);
    this._items = this._items.filter((_, i) => i !== index);
    this._settleIfEmpty();
    this._changed.emit();
  }

  /** Move a message `offset` places (-1: earlier, 1: later), within the queue. */
  move(id: string, offset: number): void {
    const from = this._indexOf(id);
    const to = Math.min(Math.max(from + offset, 0), this._items.length - 1);
    if (to === from) {
      return;
    }
    const items = [...this._items];
    const [item] = items.splice(from, 1);
    items.splice(to, 0, item);
    this._items = items;
    this._changed.emit();
  }

  clear(): void {
    this._items = [];
    this._settleIfEmpty();
    this._changed.emit();
  }

  /**
   * The user sends the held queue on: the hold is lifted and, when the
   * agent is free, the first message goes now.
   */
  resume(): void {
    this._hold = 'none';
    this._problem = null;
    this._changed.emit();
    if (this._model.status === 'idle') {
      this._sendNext();
    }
  }

  /** Put back a saved queue; it waits for the user (`paused`). */
  restore(items: readonly IQueuedMessage[]): void {
    this._items = [...items];
    this._hold = items.length > 0 ? 'paused' : 'none';
    this._changed.emit();
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._model.statusChanged.disconnect(this._onStatus, this);
    this._model.cleared.disconnect(this._onCleared, this);
    Signal.clearData(this);
  }

  private _onStatus(_: ChatModel, status: ChatStatus): void {
    if (this._items.length === 0) {
      return;
    }
    if (status === 'awaiting-decision') {
      this._setHold(this._hold === 'none' ? 'review' : this._hold);
      return;
    }
    if (status !== 'idle') {
      return;
    }
    const outcome = this._lastOutcome();
    if (outcome === 'complete') {
      if (this._hold === 'none' || this._hold === 'review') {
        this._setHold('none');
        // Not from inside the status signal: every listener must see
        // `idle` before the next turn makes it `running` again.
        void Promise.resolve().then(() => this._sendNext());
      }
    } else if (outcome === 'error') {
      this._setHold('error');
    } else if (outcome === 'cancelled') {
      this._setHold(this._hold === 'paused' ? 'paused' : 'stopped');
    }
  }

  /** A new or restored conversation: queued messages wait for the user. */
  private _onCleared(): void {
    if (this._items.length > 0) {
      this._setHold('paused');
    }
  }

  private _sendNext(): void {
    const next = this._items[0];
    if (
      this._isDisposed ||
      !next ||
      this._hold !== 'none' ||
      this._model.status !== 'idle'
    ) {
      return;
    }
    try {
      this._model.send(next.text, next.context ?? undefined);
    } catch (error) {
      this._problem = errorMessage(error);
      this._setHold('error');
      return;
    }
    this._items = this._items.slice(1);
    this._changed.emit();
  }

  private _lastOutcome(): string | null {
    const entries = this._model.entries;
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (entry.kind === 'turn') {
        return entry.state.outcome;
      }
    }
    return null;
  }

  private _setHold(hold: QueueHold): void {
    if (this._hold !== hold) {
      this._hold = hold;
      if (hold !== 'error') {
        this._problem = null;
      }
      this._changed.emit();
    }
  }

  /** An empty queue holds nothing back. */
  private _settleIfEmpty(): void {
    if (this._items.length === 0) {
      this._hold = 'none';
      this._problem = null;
    }
  }

  private _indexOf(id: string): number {
    const index = this._items.findIndex(item => item.id === id);
    if (index === -1) {
      throw new Error(this._trans.__('That message is no longer queued.'));
    }
    return index;
  }

  private _assertText(text: string): void {
    if (!text.trim()) {
      throw new Error(this._trans.__('The message is empty.'));
    }
  }

  private readonly _trans: TranslationBundle;
  private _items: IQueuedMessage[] = [];
  private _hold: QueueHold = 'none';
  private _problem: string | null = null;
  private _isDisposed = false;
  private readonly _changed = new Signal<this, void>(this);
}
