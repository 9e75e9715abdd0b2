/**
 * Moving a conversation to another branch (docs/protocol.md §13.8): an edit
 * of an earlier message or a regenerated answer starts a new branch from
 * before that message, a switch shows a sibling's branch. The branch left
 * keeps its memory on its last turn; a running turn is stopped first.
 */
import type { ITurnContext, TurnRequest } from '../../../wire/turn';
import {
  type ChatEntry,
  chatRequest,
  type ITurnEntry,
  messageBefore,
  messageIdAt,
  userEntry
} from './chat-entries';
import type { ChatStatusKeeper } from './chat-status';
import type { IConversationState } from './conversation-state';
import type { ReviewAnswers } from './review-answers';

/** Another branch is shown (docs/protocol.md §13.8). */
export interface IBranchMove {
  /** The entries whose saved fields changed (the one chosen, the last of the branch left). */
  readonly saved: readonly ChatEntry[];
  /** The turns of the branch left that the branch shown does not have, oldest first. */
  readonly left: readonly ITurnEntry[];
}

/** What branch moves read of the conversation and tell it. */
export interface IBranchMovesHost {
  readonly state: IConversationState;
  readonly status: ChatStatusKeeper;
  readonly reviews: ReviewAnswers;
  /** Start the turn the user asked for. */
  startByUser(request: TurnRequest): void;
  /** Another branch is shown (`ChatModel.branchMoved`, then `cleared`). */
  moved(move: IBranchMove): void;
}

export class BranchMoves {
  constructor(private readonly _host: IBranchMovesHost) {}

  /** `ChatModel.forkRefusal`. */
  forkRefusal(key: string): string | null {
    const { trans, transport, memory, branch } = this._host.state;
    const entries = branch.entries;
    const index = branch.indexOf(key);
    if (entries[index]?.kind !== 'user') {
      return trans.__('This message is not on the branch shown.');
    }
    if (!transport) {
      return trans.__('No agent endpoint is configured.');
    }
    if (transport.forkRefusal) {
      return transport.forkRefusal;
    }
    if (transport.memoryBefore) {
      return transport.memoryBefore(memory, messageIdAt(entries, index))
        ? null
        : trans.__(
            'This message was sent before the panel kept what it needs to go back to it.'
          );
    }
    const next = entries[index + 1];
    return next?.kind === 'turn' && next.state.startCheckpoint !== undefined
      ? null
      : trans.__(
          'This agent keeps no checkpoints of its memory, so it cannot go back to before this message.'
        );
  }

  /** `ChatModel.edit`. */
  edit(key: string, text: string, context?: ITurnContext): void {
    const refusal = this.forkRefusal(key);
    if (refusal !== null) {
      throw new Error(refusal);
    }
    const { state, status } = this._host;
    const entry = userEntry(text, context, state.trans);
    if (status.whenStopped(() => this.edit(key, text, context))) {
      return;
    }
    const { branch, transport } = state;
    const index = branch.indexOf(key);
    const next = branch.entries[index + 1];
    const start =
      next?.kind === 'turn' ? next.state.startCheckpoint : undefined;
    const messageId = messageIdAt(branch.entries, index);
    const memory = transport?.memoryBefore
      ? transport.memoryBefore(state.memory, messageId)
      : state.memory;
    const moved = this._leave();
    const left = branch.fork(key, entry);
    state.memory = memory;
    this._moved([...moved, entry], left);
    branch.showForked(entry);
    // The message keeps its id: a server that keeps the thread itself
    // (ag-ui-langgraph) sees the message edited, and goes back to before it.
    this._host.startByUser({
      ...chatRequest(state.threadId, entry, messageId),
      ...(start !== undefined ? { fork: { checkpointId: start } } : {})
    });
  }

  /** `ChatModel.regenerate`. */
  regenerate(key: string): void {
    const { trans, branch } = this._host.state;
    const message = messageBefore(branch.entries, key);
    const refusal = this.regenerateRefusal(key);
    if (refusal !== null) {
      throw new Error(refusal);
    }
    if (!message) {
      throw new Error(trans.__('This answer has no message to answer again.'));
    }
    this.edit(message.key, message.text, message.context ?? undefined);
  }

  /** `ChatModel.regenerateRefusal`. */
  regenerateRefusal(key: string): string | null {
    const { trans, transport, branch } = this._host.state;
    const message = messageBefore(branch.entries, key);
    if (!message) {
      return trans.__('This answer has no message to answer again.');
    }
    return transport?.regenerateRefusal || this.forkRefusal(message.key);
  }

  /** `ChatModel.showBranch`. */
  show(key: string): void {
    const { state, status } = this._host;
    const { branch } = state;
    if (!branch.get(key)) {
      throw new Error(state.trans.__('This conversation has no such branch.'));
    }
    if (status.whenStopped(() => this.show(key))) {
      return;
    }
    const moved = this._leave();
    const left = branch.choose(key);
    const leaf = branch.entries[branch.entries.length - 1];
    if (leaf?.kind === 'turn' && leaf.branchMemory !== undefined) {
      state.memory = leaf.branchMemory;
    }
    this._moved([...moved, branch.get(key)!], left);
    status.settle();
  }

  /** The branch shown is left: its memory stays with its last turn. */
  private _leave(): ChatEntry[] {
    const { state, reviews } = this._host;
    const entries = state.branch.entries;
    const leaf = entries[entries.length - 1];
    reviews.clear();
    state.reviewOfAnotherTab = false;
    if (leaf?.kind !== 'turn') {
      return [];
    }
    leaf.branchMemory = state.memory;
    return [leaf];
  }

  private _moved(saved: ChatEntry[], left: readonly ChatEntry[]): void {
    this._host.moved({
      saved,
      left: left.filter((entry): entry is ITurnEntry => entry.kind === 'turn')
    });
  }
}
