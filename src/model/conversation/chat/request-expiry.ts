/**
 * Which interrupt cards still wait for an answer (an AG-UI request past its
 * `expiresAt` no longer does, docs/protocol.md §8.9), and the timer that
 * looks again when the first of them expires.
 */
import type { IDisposable } from '@lumino/disposable';
import { expiryOf, isExpired } from '../../../wire/interrupts';
import type { IInterruptCard } from '../../../wire/types';
import type { ITurnEntry } from './chat-entries';

/** The unanswered, unexpired interrupt cards of `last`, when it was interrupted. */
export function pendingInterrupts(
  last: ITurnEntry | undefined
): IInterruptCard[] {
  if (!last || last.state.outcome !== 'interrupted') {
    return [];
  }
  const now = Date.now();
  return last.state.items.filter(
    (item): item is IInterruptCard =>
      item.kind === 'interrupt' &&
      item.answered === null &&
      !isExpired(item.request, now)
  );
}

export class RequestExpiry implements IDisposable {
  /** `expired` gets the cards watched when the first of them expires. */
  constructor(private readonly _expired: (cards: IInterruptCard[]) => void) {}

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Watch `pending` instead of the cards watched before. */
  watch(pending: IInterruptCard[]): void {
    clearTimeout(this._timer);
    const expiries = pending
      .map(card => expiryOf(card.request))
      .filter((at): at is number => at !== null);
    if (expiries.length > 0 && !this._isDisposed) {
      const delay = Math.min(Math.min(...expiries) - Date.now(), MAX_TIMER_MS);
      this._timer = setTimeout(
        () => this._expired(pending),
        Math.max(0, delay)
      );
    }
  }

  dispose(): void {
    this._isDisposed = true;
    clearTimeout(this._timer);
  }

  private _timer: ReturnType<typeof setTimeout> | undefined;
  private _isDisposed = false;
}

/** The longest delay `setTimeout` takes (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;
