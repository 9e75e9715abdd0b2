/**
 * The tool calls of one transcript, by call id. A call the agent made before
 * a review pauses the turn; the turn that resumes carries its result (and
 * langstage-core announces the call again first). The first card built for
 * a call shows it, with the result a later turn brings; the later turn's
 * card for the same call shows nothing. A card whose turn leaves the
 * transcript (a long conversation keeps its latest entries built) lets its
 * call go: the card built for it next shows it, with its result.
 */
import type { IToolCard } from '../../wire/types';

/** A card that can show the result another turn carries. */
export interface IToolCallHome {
  resultArrived(result: IToolCard): void;
}

export class ToolCalls {
  /** The card that shows call `callId`: `card` when it is the first to ask. */
  homeOf(callId: string, card: IToolCallHome): IToolCallHome {
    const home = this._homes.get(callId);
    if (home) {
      return home;
    }
    this._homes.set(callId, card);
    return card;
  }

  /** The result of call `callId` that a later turn brought, if any. */
  resultOf(callId: string): IToolCard | undefined {
    return this._results.get(callId);
  }

  /** A later turn brought the result of call `callId`: its home shows it. */
  deliver(callId: string, result: IToolCard): void {
    this._results.set(callId, result);
    this._homes.get(callId)?.resultArrived(result);
  }

  /** `card` is disposed: it no longer shows call `callId`. */
  release(callId: string, card: IToolCallHome): void {
    if (this._homes.get(callId) === card) {
      this._homes.delete(callId);
    }
  }

  private readonly _homes = new Map<string, IToolCallHome>();
  private readonly _results = new Map<string, IToolCard>();
}
