/**
 * What other plugins contribute to the panel: transports for an endpoint
 * kind, commands shown on transcript items, and answers to reviews they
 * recognise.
 */
import type { ISignal } from '@lumino/signaling';
import type { Decision, IActionRequest } from '../wire/types';
import type {
  INotebookChange,
  IRewindPlan,
  IRewindResult
} from './notebook-changes';
import type { IAgentTransport } from './transport';
import type { IEndpointSettings } from './settings';

/** Builds the transport for an endpoint of one kind (`http`, `comm`, `agui`). */
export type TransportFactory = (endpoint: IEndpointSettings) => IAgentTransport;

/**
 * Where a command shows up in the transcript, and the arguments it gets:
 * - `extraction`: a button on each extraction card; args `{turn, item}`;
 * - `code`: a button on each code block of an answer; args `{code, language}`;
 * - `message`: a button on each answer text block; args `{turn, item}`;
 * - `plan`: a button on the plan pinned at the top of the panel; args
 *   `{turn, item}` of the `todos` extraction the plan shows.
 * `turn` is the turn entry's key and `item` the item's key (see
 * `ChatModel.findItem`). The button's label, caption and enabled state come
 * from the command, so a command that cannot apply explains why in its caption.
 */
export interface IItemAction {
  command: string;
  target: 'extraction' | 'code' | 'message' | 'plan';
  /** Lower ranks come first. */
  rank?: number;
}

/**
 * Answers the rows of a review it recognises in the panel's place, e.g. a
 * notebook tool call (docs/protocol.md §12.3), which it runs (after its own
 * review of the change) and answers with the result. A review with any row
 * no handler takes is the user's to answer, row by row, as usual.
 */
export interface IInterruptHandler {
  handles(action: IActionRequest): boolean;
  /**
   * The decision for `action`. `signal` aborts when the review is answered
   * otherwise or the conversation moves on; the decision is then dropped.
   */
  decide(action: IActionRequest, signal: AbortSignal): Promise<Decision>;
}

/**
 * Takes back a notebook change the agent applied, from the card of the call
 * that made it (docs/protocol.md §12.10). Provided by the notebook tools.
 */
export interface IChangeUndo {
  /** The change made by call `callId` was recorded, undone or redone. */
  readonly changed: ISignal<IChangeUndo, string>;
  /** `applied`: it can be undone; `undone`: it was; null: no change of that call is known here. */
  state(callId: string): 'applied' | 'undone' | null;
  /**
   * Take the change back as one step (one Undo Cell Operation). Resolves to
   * null, or to why not, for the user: the cell changed since, the notebook
   * is not open.
   */
  undo(callId: string): Promise<string | null>;
}

/**
 * Brings notebooks back to how they were before some of the agent's changes
 * (docs/protocol.md §12.11). Provided by the notebook tools, which read and
 * change the live notebooks.
 */
export interface INotebookRewinder {
  /**
   * What it takes to undo `changes` (oldest first), cell by cell, against
   * the notebooks as they are now.
   */
  plan(changes: readonly INotebookChange[]): Promise<IRewindPlan>;
  /**
   * Bring back the cells of `plan` whose keys are `selected`, as one undo
   * step per notebook; a cell changed since the plan was made is skipped.
   */
  apply(
    changes: readonly INotebookChange[],
    plan: IRewindPlan,
    selected: readonly string[]
  ): Promise<IRewindResult>;
}

/** The command that shows a notebook cell, args `{path, cellId}` (a tool card's "cell 3"). */
export const REVEAL_CELL_COMMAND = 'agent-panel:reveal-cell';
