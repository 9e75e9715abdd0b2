/**
 * Reviews that plugins answer in the panel's place (`IInterruptHandler`):
 * when the conversation waits for a review whose every row a handler takes,
 * the handlers decide the rows in order and the review is answered with
 * their decisions, once. The user can still answer the card first; the
 * handlers' work is then aborted. After a page reload a review still
 * pending is taken up again (docs/protocol.md §12.3); one shown as another
 * tab saved it is left to that tab (docs/protocol.md §13.7).
 */
import { DisposableDelegate, type IDisposable } from '@lumino/disposable';
import { Signal } from '@lumino/signaling';
import type { IInterruptHandler } from '../../contracts/extension-points';
import { errorMessage } from '../../wire/json';
import type { IActionRequest } from '../../wire/types';
import type { ChatModel } from './chat-model';
import type { ChatStatus } from './chat/chat-status';

export class InterruptHandlers implements IDisposable {
  constructor(private _model: ChatModel) {
    _model.statusChanged.connect(this._onStatus, this);
  }

  /** Answer the reviews of another conversation (the panel shows another one). */
  follow(model: ChatModel): void {
    this._model.statusChanged.disconnect(this._onStatus, this);
    this._working?.abort();
    this._working = null;
    this._model = model;
    model.statusChanged.connect(this._onStatus, this);
    this._takeUp();
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  register(handler: IInterruptHandler): IDisposable {
    this._handlers.push(handler);
    this._takeUp();
    return new DisposableDelegate(() => {
      this._handlers = this._handlers.filter(h => h !== handler);
    });
  }

  handles(action: IActionRequest): boolean {
    return this._handlers.some(handler => handler.handles(action));
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._working?.abort();
    Signal.clearData(this);
  }

  private _onStatus(_: ChatModel, status: ChatStatus): void {
    if (status === 'awaiting-decision') {
      this._takeUp();
    } else {
      // Answered (by the handlers or the user), or the conversation moved on.
      this._working?.abort();
      this._working = null;
    }
  }

  /** Answer the pending review if every row of it has a handler. */
  private _takeUp(): void {
    const model = this._model;
    if (
      this._working ||
      model.status !== 'awaiting-decision' ||
      model.reviewOfAnotherTab
    ) {
      return;
    }
    const cards = model.pendingInterrupts;
    if (cards.length === 0 || cards.some(card => card.request)) {
      return;
    }
    const rows = cards.flatMap(card => card.actions);
    const handlers = rows.map(row => this._handlers.find(h => h.handles(row)));
    if (handlers.some(handler => !handler)) {
      return;
    }
    const working = new AbortController();
    this._working = working;
    void (async () => {
      try {
        const decisions = [];
        for (const [index, row] of rows.entries()) {
          decisions.push(await handlers[index]!.decide(row, working.signal));
          if (working.signal.aborted) {
            return;
          }
        }
        if (this._working === working) {
          this._working = null;
          model.answer(decisions);
        }
      } catch (error) {
        // The review stays open for the user to answer.
        console.warn(
          `Agent Panel: a review could not be answered: ${errorMessage(error)}`
        );
        if (this._working === working) {
          this._working = null;
        }
      }
    })();
  }

  private _handlers: IInterruptHandler[] = [];
  private _working: AbortController | null = null;
  private _isDisposed = false;
}
