/**
 * The status of a conversation: idle, running (a turn streams or client
 * tools run), or awaiting a decision (an interrupt waits for review). It is
 * settled once nothing runs, and settled again when a request it waits for
 * expires; what waited for the running turn to stop runs then.
 */
import type { IDisposable } from '@lumino/disposable';
import type { IInterruptCard } from '../../../wire/types';
import { announceChanges, type IConversationState } from './conversation-state';
import { pendingInterrupts, RequestExpiry } from './request-expiry';

/** `running`: a turn streams. `awaiting-decision`: an interrupt waits for review. */
export type ChatStatus = 'idle' | 'running' | 'awaiting-decision';

/** What the status reads of the conversation and tells it. */
export interface IStatusHost {
  readonly state: IConversationState;
  /** Whether a turn streams or client tools run. */
  busy(): boolean;
  /** Ask the running turn (or client tools) to stop. */
  stop(): void;
  /** The status changed (`ChatModel.statusChanged`). */
  changed(status: ChatStatus): void;
}

export class ChatStatusKeeper implements IDisposable {
  constructor(private readonly _host: IStatusHost) {}

  get value(): ChatStatus {
    return this._value;
  }

  get isDisposed(): boolean {
    return this._expiry.isDisposed;
  }

  set(status: ChatStatus): void {
    if (this._value !== status) {
      this._value = status;
      this._host.changed(status);
    }
  }

  /**
   * Idle, or waiting for a review, once nothing runs; an AG-UI request that
   * expires later is looked at again then.
   */
  settle(): void {
    if (this._host.busy()) {
      return;
    }
    const after = this._afterStop;
    if (after) {
      this._afterStop = null;
      after();
      return;
    }
    const pending = pendingInterrupts(this._host.state.branch.lastTurn());
    this.set(pending.length > 0 ? 'awaiting-decision' : 'idle');
    this._expiry.watch(pending);
  }

  /** Refused (with the reason) while a turn runs or a review waits. */
  assertCanStart(): void {
    const trans = this._host.state.trans;
    if (this._value === 'running') {
      throw new Error(
        trans.__('The agent is still answering; wait or press Stop.')
      );
    }
    if (this._value === 'awaiting-decision') {
      throw new Error(
        trans.__(
          'The agent is waiting for your review; answer it before sending a new message.'
        )
      );
    }
  }

  /**
   * Run `action` once the running turn (or client tools) stopped: true when
   * it waits for that, false when nothing runs.
   */
  whenStopped(action: () => void): boolean {
    if (!this._host.busy()) {
      return false;
    }
    this._afterStop = action;
    this._host.stop();
    return true;
  }

  /** The conversation moved on: what waited for a stop no longer does. */
  forgetAfterStop(): void {
    this._afterStop = null;
  }

  dispose(): void {
    this._expiry.dispose();
  }

  /** A request waited for expired: its cards show it, the status follows. */
  private _expired(cards: IInterruptCard[]): void {
    const { state } = this._host;
    const last = state.branch.lastTurn();
    if (last) {
      announceChanges(
        state,
        last,
        cards.map(card => ({ type: 'updated', item: card }))
      );
    }
    this.settle();
  }

  private _value: ChatStatus = 'idle';
  /** What to do once the running turn stopped (an edit or a switch asked for it). */
  private _afterStop: (() => void) | null = null;
  private readonly _expiry = new RequestExpiry(cards => this._expired(cards));
}
