/**
 * The tool calls of one transcript, by call id. A call the agent made before
 * a review pauses the turn; the turn that resumes carries its result (and
 * langstage-core announces the call again first). The first card built for
 * a call shows it, with the result a later turn brings; the later turn's
 * card for the same call shows nothing.
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

  private readonly _homes = new Map<string, IToolCallHome>();
}
