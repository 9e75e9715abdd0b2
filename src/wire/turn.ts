/**
 * What the panel asks of a producer for one turn and how the answer comes
 * back: the shapes every transport and the model share. Pure data.
 */
import type { WireFrame } from './frame-types';
import type { Decision } from './types';

/** Workspace context that accompanies a chat message (LangStage HTTP names). */
export interface ITurnContext {
  current_directory?: string;
  focused_widget?: string;
  selected_text?: string;
  selection_metadata?: string;
}

/** What the panel asks a transport to run. */
export type TurnRequest =
  | {
      kind: 'chat';
      threadId: string;
      message: string;
      context?: ITurnContext;
    }
  | {
      kind: 'resume';
      threadId: string;
      decisions: Decision[];
      /**
       * The reviews these decisions answer, in order: each one's interrupt
       * ids (when the producer revealed them) and how many decisions it
       * takes. Lets AG-UI address each interrupt even after a page reload.
       */
      reviews?: { interruptIds: string[]; rows: number }[];
    };

/**
 * Why a producer refused a request without running anything, when the model
 * acts on it. `nothing_pending`: a resume found no review waiting, so it was
 * answered elsewhere (another tab or window) and these decisions were not
 * applied.
 */
export type TurnRefusal = 'nothing_pending';

/**
 * Where a transport delivers a turn. Transports parse at the edge: only
 * typed frames reach `frame` (bytes from outside through `decodeFrame`, AG-UI
 * through its mapper); what could not be read goes to `diagnostic`.
 */
export interface ITurnSink {
  frame(frame: WireFrame): void;
  diagnostic(message: string): void;
  /**
   * The stream is over: `reason` is set when the transport itself failed
   * (HTTP status, network, kernel died) and names the endpoint and cause.
   * With no reason and no terminal frame seen, the EOF rule applies.
   * `refusal` says why the producer refused the request, when the model
   * acts on it (`nothing_pending`: a resume found no review waiting).
   */
  end(reason?: string, refusal?: TurnRefusal): void;
}

export interface ITurnHandle {
  /** Ask the producer to stop (cancel route / comm message / abort). */
  stop(): void;
  /** Settles once `sink.end` has been called. */
  readonly done: Promise<void>;
}
