/**
 * The tool calls of one transcript, by call id. A call the agent made before
 * a review pauses the turn; its result comes in the turn that resumes. The
 * result goes to the card of the call, where it was asked for, and the
 * later turn shows nothing more of it. Whichever of the two cards is built
 * first (a long conversation builds its earlier turns later), they meet here.
 */
import type { IToolCard } from '../../wire/types';

/** A card that can show the result another turn carries. */
export interface IToolCallHome {
  resultArrived(result: IToolCard): void;
}

export class ToolCalls {
  /** `home` shows call `callId`; a result that arrived before it goes to it now. */
  register(callId: string, home: IToolCallHome): void {
    this._homes.set(callId, home);
    const waiting = this._results.get(callId);
    if (waiting) {
      this._results.delete(callId);
      home.resultArrived(waiting.result);
      waiting.taken();
    }
  }

  /**
   * A later turn's result of a call: true when a card of the call takes it
   * (the result's own card then shows nothing), false when the call is not
   * shown here yet: it is kept for it, and `taken` is called when it takes it.
   */
  deliver(result: IToolCard, taken: () => void): boolean {
    const callId = result.callId;
    if (callId === null) {
      return false;
    }
    const home = this._homes.get(callId);
    if (home) {
      home.resultArrived(result);
      return true;
    }
    this._results.set(callId, { result, taken });
    return false;
  }

  private readonly _homes = new Map<string, IToolCallHome>();
  private readonly _results = new Map<
    string,
    { result: IToolCard; taken: () => void }
  >();
}
