/**
 * Answering the review a conversation waits for: decisions for LangGraph
 * review cards, and responses to AG-UI request cards (held until every card
 * of the turn is answered). The cards are marked answered and the resume
 * that answers them is sent once.
 */
import { translated } from '../../../contracts/problems';
import { buildResume, reviewRowCount } from '../../../wire/decisions';
import { isExpired } from '../../../wire/interrupts';
import { validateJson } from '../../../wire/json-schema';
import type { TurnRequest } from '../../../wire/turn';
import type {
  Decision,
  IInterruptCard,
  InterruptResponse
} from '../../../wire/types';
import type { ChatStatusKeeper } from './chat-status';
import {
  applyLocal,
  assertTransport,
  type IConversationState
} from './conversation-state';
import { pendingInterrupts } from './request-expiry';
import type { IAnswering } from './running-turn';

/** What answering reads of the conversation and tells it. */
export interface IReviewAnswersHost {
  readonly state: IConversationState;
  readonly status: ChatStatusKeeper;
  /** Start the resume the user's answers make. */
  startByUser(request: TurnRequest, answering: IAnswering): void;
}

export class ReviewAnswers {
  constructor(private readonly _host: IReviewAnswersHost) {}

  /** Answer the LangGraph review cards pending (`ChatModel.answer`). */
  answer(decisions: Decision[]): void {
    const { trans } = this._host.state;
    const cards = this._pendingCards();
    const reviews = cards.filter(card => !card.request);
    if (reviews.length === 0) {
      throw new Error(
        trans.__('The agent asks for an answer here, not a decision.')
      );
    }
    if (cards.some(card => card.request && !this._held.has(card))) {
      throw new Error(
        trans.__('Answer the other request of the agent in this turn first.')
      );
    }
    this._resume(cards, buildResume(reviews, decisions).decisions);
  }

  /** Answer an AG-UI request card (`ChatModel.respond`). */
  respond(card: IInterruptCard, response: InterruptResponse): void {
    const { trans } = this._host.state;
    if (card.request && isExpired(card.request, Date.now())) {
      throw new Error(
        trans.__(
          'This request expired at %1: it can no longer be answered.',
          String(card.request.expiresAt)
        )
      );
    }
    const cards = this._pendingCards();
    if (!card.request || !cards.includes(card)) {
      throw new Error(trans.__('There is no pending review to answer.'));
    }
    if (response.status === 'resolved') {
      const problems = validateJson(
        response.payload,
        card.request.responseSchema
      );
      if (problems.length > 0) {
        throw new Error(
          trans.__(
            'The answer does not match what the agent asked for: %1',
            problems.map(found => translated(found, trans)).join('; ')
          )
        );
      }
    }
    this._held.set(card, response);
    if (cards.every(pending => this._held.has(pending))) {
      this._resume(cards, []);
    }
  }

  /** Forget the responses held: the review they answer is no longer shown. */
  clear(): void {
    this._held.clear();
  }

  /** The unexpired pending cards, when a review waits; else a refusal. */
  private _pendingCards(): IInterruptCard[] {
    const { state, status } = this._host;
    const cards = pendingInterrupts(state.branch.lastTurn());
    if (status.value !== 'awaiting-decision' || cards.length === 0) {
      throw new Error(state.trans.__('There is no pending review to answer.'));
    }
    assertTransport(state);
    return cards;
  }

  /** Mark the cards answered and send the resume that answers them. */
  private _resume(cards: IInterruptCard[], decisions: Decision[]): void {
    const { state } = this._host;
    const last = state.branch.lastTurn()!;
    const reviews = cards.filter(card => !card.request);
    if (reviews.length > 0) {
      applyLocal(state, last, {
        type: 'review_answered',
        cards: reviews,
        decisions
      });
    }
    for (const card of cards) {
      const response = this._held.get(card);
      if (card.request && response) {
        applyLocal(state, last, { type: 'request_answered', card, response });
      }
    }
    const answers = cards.map(card => ({
      interruptIds: [...card.interruptIds],
      rows: card.request ? 0 : reviewRowCount(card),
      ...(card.request ? { response: this._held.get(card) } : {})
    }));
    this._held.clear();
    this._host.startByUser(
      {
        kind: 'resume',
        threadId: state.threadId,
        decisions,
        reviews: answers
      },
      { entry: last, cards }
    );
  }

  /** Answers to AG-UI requests, held until the whole turn is answered. */
  private readonly _held = new Map<IInterruptCard, InterruptResponse>();
}
