/**
 * What the parts of a conversation (`ChatModel`) share: its thread, its
 * transport and the memory the transport keeps, the branch shown, and how a
 * change to a turn is announced.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IAgentTransport } from '../../../contracts/transport';
import type { JsonObject } from '../../../wire/json';
import {
  applyLocalEvent,
  type LocalTurnEvent
} from '../../../wire/local-events';
import type { TurnChange } from '../../../wire/types';
import type { ITurnEntry, ITurnUpdate } from './chat-entries';
import type { ShownBranch } from './shown-branch';

export interface IConversationState {
  readonly trans: TranslationBundle;
  threadId: string;
  transport: IAgentTransport | null;
  /**
   * What the transport asked to remember of this conversation
   * (`ChatModel.transportMemory`); null until it asks.
   */
  memory: JsonObject | null;
  /** The model sent with each request; null: the endpoint's default. */
  chosenModel: string | null;
  /** The review pending is another tab's to answer (`ChatModel.reviewOfAnotherTab`). */
  reviewOfAnotherTab: boolean;
  readonly branch: ShownBranch;
  /** Announce changes of a turn (`ChatModel.turnChanged`). */
  readonly turnChanged: (update: ITurnUpdate) => void;
}

/** The transport; refused when no agent endpoint is configured. */
export function assertTransport(state: IConversationState): IAgentTransport {
  if (!state.transport) {
    throw new Error(state.trans.__('No agent endpoint is configured.'));
  }
  return state.transport;
}

/** Apply a local event to the turn `entry` and announce what it changed. */
export function applyLocal(
  state: IConversationState,
  entry: ITurnEntry,
  event: LocalTurnEvent
): void {
  announceChanges(state, entry, applyLocalEvent(entry.state, event));
}

export function announceChanges(
  state: IConversationState,
  entry: ITurnEntry,
  changes: readonly TurnChange[]
): void {
  if (changes.length > 0) {
    state.turnChanged({ entry, changes });
  }
}
