/**
 * What the panel itself does to a turn's state, besides its producer's
 * frames: answering reviews, running client tools, notes, a reload.
 */
import { reviewRowCount } from './decisions';
import type { IClientToolResult } from './turn';
import type {
  Decision,
  IInterruptCard,
  InterruptResponse,
  IToolCard,
  ITurnState,
  TranscriptItem,
  TurnChange
} from './types';

/**
 * What the panel itself decides about a turn, rather than its producer. It
 * is applied to the turn's state, not to a reducer, because the reducer of
 * that turn is gone: the review belongs to a turn that ended, and a restored
 * turn never had one here.
 */
export type LocalTurnEvent =
  /** The review was sent: each card (of `state`) takes its rows of decisions, in order. */
  | {
      type: 'review_answered';
      cards: readonly IInterruptCard[];
      decisions: readonly Decision[];
    }
  /** An AG-UI 1.0 request card was answered with `response`. */
  | {
      type: 'request_answered';
      card: IInterruptCard;
      response: InterruptResponse;
    }
  /** The producer had no review waiting for these cards: answered in another tab. */
  | { type: 'answered_elsewhere'; cards: readonly IInterruptCard[] }
  /** The panel runs these calls of its client tools (docs/protocol.md §8.11). */
  | { type: 'client_tools_running'; cards: readonly IToolCard[] }
  /** A client tool the panel ran gave `result`. */
  | {
      type: 'client_tool_finished';
      card: IToolCard;
      result: IClientToolResult;
      /** How long it ran; null when that is not known (cut by a reload). */
      durationMs: number | null;
    }
  /** These client tools' results went to the agent. */
  | { type: 'client_tools_delivered'; cards: readonly IToolCard[] }
  /** A note of the panel's own on a turn that ended. */
  | { type: 'note'; message: string }
  /** The turn was still streaming when the page was left: it ends as cancelled. */
  | { type: 'ended_by_reload' };

/** Apply a `LocalTurnEvent` to `state`; returns what changed, like a frame. */
export function applyLocalEvent(
  state: ITurnState,
  event: LocalTurnEvent
): TurnChange[] {
  switch (event.type) {
    case 'review_answered': {
      let offset = 0;
      for (const card of event.cards) {
        const rows = reviewRowCount(card);
        card.answered = event.decisions.slice(offset, offset + rows);
        offset += rows;
      }
      return updated(event.cards);
    }
    case 'request_answered':
      event.card.answered = [];
      event.card.response = event.response;
      return updated([event.card]);
    case 'answered_elsewhere':
      for (const card of event.cards) {
        card.answeredElsewhere = true;
      }
      return updated(event.cards);
    case 'client_tools_running':
      for (const card of event.cards) {
        card.clientTool = { delivered: false };
      }
      return updated(event.cards);
    case 'client_tool_finished': {
      const { card, result } = event;
      card.result = result.content;
      card.status = result.error ? 'error' : 'success';
      card.durationMs = event.durationMs;
      return updated([card]);
    }
    case 'client_tools_delivered':
      for (const card of event.cards) {
        card.clientTool = { delivered: true };
      }
      return updated(event.cards);
    case 'note':
      state.diagnostics.push(event.message);
      return [{ type: 'diagnostic', message: event.message }];
    case 'ended_by_reload':
      if (state.outcome !== null) {
        return [];
      }
      state.outcome = 'cancelled';
      return [{ type: 'ended', outcome: 'cancelled' }];
  }
}

function updated(items: readonly TranscriptItem[]): TurnChange[] {
  return items.map(item => ({ type: 'updated', item }));
}
