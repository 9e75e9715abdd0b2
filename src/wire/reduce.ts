/**
 * The turn reducer: folds validated frames into an `ITurnState`
 * (docs/protocol.md §4). One reducer per turn; it never throws on frame content.
 *
 * Cost per frame is O(1) amortised: deltas are appended to the open block in
 * place, tool cards are found through a map (by id) or a queue (FIFO), and
 * each change names only the item it touched.
 */
import type {
  IActivityFrame,
  IInterruptFrame,
  IStreamingFrame,
  ISubagentFrame,
  IWireExtraction,
  IWireToolCall,
  IWireToolResult,
  WireFrame
} from './frame-types';
import {
  interruptSignature,
  readInterruptRequest,
  readReviewRows
} from './interrupts';
import { nextItemKey, tagged } from './item-keys';
import { ToolCards } from './tool-cards';
import {
  MAX_DIAGNOSTICS,
  STREAM_ENDED_UNEXPECTEDLY,
  type IActivity,
  type IExtractionCard,
  type IInterruptCard,
  type IReasoningBlock,
  type ISubagentRun,
  type ISubagentTag,
  type ITextBlock,
  type IToolCard,
  type ITurnState,
  type Outcome,
  type TranscriptItem,
  type TurnChange
} from './types';

export interface ITurnReducerOptions {
  /**
   * Unanswered interrupt cards of earlier turns. When the producer
   * re-surfaces one of them unchanged (F10c), the reducer reports that card
   * as updated instead of adding a duplicate.
   */
  pendingInterrupts?: readonly IInterruptCard[];
}

export class TurnReducer {
  /** The live turn state; mutated in place as frames arrive. */
  readonly state: ITurnState = {
    items: [],
    outcome: null,
    error: null,
    cancelMessage: null,
    diagnostics: []
  };

  constructor(options: ITurnReducerOptions = {}) {
    for (const card of options.pendingInterrupts ?? []) {
      if (card.answered === null) {
        this._interruptsBySignature.set(
          interruptSignature(card.actions, card.allowedDecisions, card.request),
          card
        );
      }
    }
  }

  get ended(): boolean {
    return this.state.outcome !== null;
  }

  apply(frame: WireFrame): TurnChange[] {
    if (this.ended) {
      return this._ignoreLateFrame(frame);
    }
    if (frame.checkpoint_id !== undefined) {
      this.state.startCheckpoint = frame.checkpoint_id;
    }
    if (frame.end_checkpoint_id !== undefined) {
      this.state.endCheckpoint = frame.end_checkpoint_id;
    }
    switch (frame.status) {
      case 'streaming':
        return this._applyStreaming(frame);
      case 'interrupt':
        return this._applyInterrupt(frame);
      case 'complete':
        return this._end(
          this._sawInterrupt || frame.outcome === 'interrupted'
            ? 'interrupted'
            : 'complete'
        );
      case 'error':
        this.state.error = { message: frame.error, traceback: frame.traceback };
        return this._end('error');
      case 'cancelled':
        this.state.cancelMessage = frame.message;
        return this._end('cancelled');
      // State, activity and subagent frames sit beside the transcript: they
      // neither add items nor close the open text block.
      case 'state':
        this.state.agentState = frame.state;
        return [{ type: 'state', state: frame.state }];
      case 'activity':
        return this._applyActivity(frame);
      case 'subagent':
        return this._applySubagent(frame);
      case 'usage':
        this.state.usage = {
          inputTokens: frame.input_tokens,
          outputTokens: frame.output_tokens
        };
        return [{ type: 'usage', usage: this.state.usage }];
      case 'ignored':
        return [];
    }
  }

  /**
   * The frame source is exhausted. Without a terminal frame the turn ends
   * as an error: `reason` names a transport failure, else the EOF rule.
   */
  endOfStream(reason?: string): TurnChange[] {
    if (this.ended) {
      return reason ? this.diagnostic(`after the turn ended: ${reason}`) : [];
    }
    this.state.error = {
      message: reason ?? STREAM_ENDED_UNEXPECTEDLY,
      traceback: null
    };
    return this._end('error');
  }

  /** End the turn here as cancelled (Stop with no answer from the producer). */
  cancelLocally(message: string): TurnChange[] {
    if (this.ended) {
      return [];
    }
    this.state.cancelMessage = message;
    return this._end('cancelled');
  }

  /**
   * Record a problem noticed around the stream; shown, never thrown. After
   * `MAX_DIAGNOSTICS` notes only a count is kept (in the last note, without
   * a change each time), so a stream of bad lines costs O(1) per line.
   */
  diagnostic(message: string): TurnChange[] {
    const notes = this.state.diagnostics;
    if (notes.length < MAX_DIAGNOSTICS) {
      notes.push(message);
      return [{ type: 'diagnostic', message }];
    }
    this._droppedDiagnostics += 1;
    const summary = `${this._droppedDiagnostics} more stream notes were not kept`;
    if (notes.length === MAX_DIAGNOSTICS) {
      notes.push(summary);
      return [{ type: 'diagnostic', message: summary }];
    }
    notes[MAX_DIAGNOSTICS] = summary;
    return [];
  }

  private _applyStreaming(frame: IStreamingFrame): TurnChange[] {
    const changes: TurnChange[] = [];
    for (const problem of frame.problems) {
      changes.push(
        ...this.diagnostic(`dropped a malformed payload: ${problem}`)
      );
    }
    // Core's collector handles every payload key; in this order (docs/protocol.md §2.9).
    const { subagent } = frame;
    if (frame.chunk) {
      this._appendText(
        frame.chunk,
        frame.node,
        frame.message_id,
        subagent,
        changes
      );
    }
    if (frame.reasoning) {
      this._appendReasoning(frame.reasoning, frame.node, subagent, changes);
    }
    for (const call of frame.tool_calls ?? []) {
      this._addToolCall(call, subagent, changes);
    }
    if (frame.tool_result) {
      this._attachToolResult(frame.tool_result, subagent, changes);
    }
    if (frame.extraction) {
      this._addExtraction(frame.extraction, changes);
    }
    return changes;
  }

  private _appendText(
    delta: string,
    node: string | null,
    messageId: string | null,
    subagent: ISubagentTag | undefined,
    changes: TurnChange[]
  ): void {
    this._openReasoning = null;
    this._lastResultCard = null;
    const open = this._openText;
    if (
      open &&
      sameSubagent(open.subagent, subagent) &&
      continuesTextBlock(open, node, messageId)
    ) {
      if (this._grow(open, delta)) {
        open.messageId ??= messageId;
        changes.push({ type: 'updated', item: open });
      }
      return;
    }
    const block: ITextBlock = {
      kind: 'text',
      key: nextItemKey(),
      text: '',
      node,
      messageId,
      ...tagged(subagent)
    };
    this._openText = block;
    this._grow(block, delta);
    this._add(block, changes);
  }

  private _appendReasoning(
    delta: string,
    node: string | null,
    subagent: ISubagentTag | undefined,
    changes: TurnChange[]
  ): void {
    this._openText = null;
    this._lastResultCard = null;
    const open = this._openReasoning;
    if (open && sameSubagent(open.subagent, subagent)) {
      if (this._grow(open, delta)) {
        changes.push({ type: 'updated', item: open });
      }
      return;
    }
    const block: IReasoningBlock = {
      kind: 'reasoning',
      key: nextItemKey(),
      text: '',
      node,
      ...tagged(subagent)
    };
    this._openReasoning = block;
    this._grow(block, delta);
    this._add(block, changes);
  }

  /**
   * Append `delta` to `block`. Every character is kept, however long the
   * block grows (docs/protocol.md §4.9): the views decide how much of a
   * very long text they render. False when nothing was appended.
   */
  private _grow(block: ITextBlock | IReasoningBlock, delta: string): boolean {
    if (delta.length === 0) {
      return false;
    }
    block.text += delta;
    return true;
  }

  private _addToolCall(
    call: IWireToolCall,
    subagent: ISubagentTag | undefined,
    changes: TurnChange[]
  ): void {
    this._closeBlocks();
    const { card, isNew } = this._tools.call(call, subagent);
    this._addOrUpdate(card, isNew, changes);
  }

  private _attachToolResult(
    result: IWireToolResult,
    subagent: ISubagentTag | undefined,
    changes: TurnChange[]
  ): void {
    this._closeBlocks();
    const { card, isNew } = this._tools.result(result, subagent);
    this._lastResultCard = card;
    this._addOrUpdate(card, isNew, changes);
  }

  private _addExtraction(
    extraction: IWireExtraction,
    changes: TurnChange[]
  ): void {
    this._openText = null;
    this._openReasoning = null;
    const card: IExtractionCard = {
      kind: 'extraction',
      key: nextItemKey(),
      toolName: extraction.tool_name ?? this._lastResultCard?.name ?? 'tool',
      extractedType: extraction.extracted_type ?? '',
      data: extraction.data,
      // Core sends an extraction right after its own tool result (docs/protocol.md §3.2).
      toolKey: this._lastResultCard?.key ?? null
    };
    this._add(card, changes);
  }

  private _applyInterrupt(frame: IInterruptFrame): TurnChange[] {
    this._closeBlocks();
    this._sawInterrupt = true;
    const { actions, allowedDecisions } = readReviewRows(frame.interrupt);
    const request = frame.request
      ? readInterruptRequest(frame.request)
      : undefined;
    const signature = interruptSignature(actions, allowedDecisions, request);
    const existing = this._interruptsBySignature.get(signature);
    if (existing && existing.answered === null) {
      for (const id of frame.interrupt_ids ?? []) {
        if (!existing.interruptIds.includes(id)) {
          existing.interruptIds.push(id);
        }
      }
      return [{ type: 'updated', item: existing }];
    }
    const card: IInterruptCard = {
      kind: 'interrupt',
      key: nextItemKey(),
      actions,
      allowedDecisions,
      interruptIds: [...(frame.interrupt_ids ?? [])],
      answered: null,
      ...(request ? { request } : {})
    };
    this._interruptsBySignature.set(signature, card);
    const changes: TurnChange[] = [];
    this._add(card, changes);
    return changes;
  }

  private _applyActivity(frame: IActivityFrame): TurnChange[] {
    const activities = (this.state.activities ??= []);
    let activity = this._activitiesById.get(frame.id);
    if (activity) {
      activity.activityType = frame.activity_type;
      activity.content = frame.content;
    } else {
      activity = {
        id: frame.id,
        activityType: frame.activity_type,
        content: frame.content,
        ...tagged(frame.subagent)
      };
      this._activitiesById.set(frame.id, activity);
      activities.push(activity);
    }
    return [{ type: 'activity', activity }];
  }

  private _applySubagent(frame: ISubagentFrame): TurnChange[] {
    const subagents = (this.state.subagents ??= []);
    let run = this._subagentsById.get(frame.id);
    if (run) {
      // A later frame may know less (a bare finish): keep what is known.
      run.name = frame.name ?? run.name;
      run.description = frame.description ?? run.description;
      run.parentId = frame.parent_id ?? run.parentId;
      run.status = frame.subagent_status;
      run.message = frame.message;
    } else {
      run = {
        id: frame.id,
        name: frame.name,
        description: frame.description,
        parentId: frame.parent_id,
        status: frame.subagent_status,
        message: frame.message
      };
      this._subagentsById.set(frame.id, run);
      subagents.push(run);
    }
    return [{ type: 'subagent', subagent: run }];
  }

  private _ignoreLateFrame(frame: WireFrame): TurnChange[] {
    if (this._reportedLateFrame || frame.status === 'ignored') {
      return [];
    }
    this._reportedLateFrame = true;
    return this.diagnostic(
      `ignored a "${frame.status}" frame (and any later ones) after the turn ended`
    );
  }

  private _end(outcome: Outcome): TurnChange[] {
    this._closeBlocks();
    this.state.outcome = outcome;
    return [{ type: 'ended', outcome }];
  }

  private _closeBlocks(): void {
    this._openText = null;
    this._openReasoning = null;
    this._lastResultCard = null;
  }

  private _add(item: TranscriptItem, changes: TurnChange[]): void {
    this.state.items.push(item);
    changes.push({ type: 'added', item });
  }

  private _addOrUpdate(
    item: TranscriptItem,
    isNew: boolean,
    changes: TurnChange[]
  ): void {
    if (isNew) {
      this._add(item, changes);
    } else {
      changes.push({ type: 'updated', item });
    }
  }

  private _openText: ITextBlock | null = null;
  private _openReasoning: IReasoningBlock | null = null;
  /** The card the last tool result went to, while an extraction may follow. */
  private _lastResultCard: IToolCard | null = null;
  private readonly _tools = new ToolCards();
  private _sawInterrupt = false;
  private _interruptsBySignature = new Map<string, IInterruptCard>();
  private _activitiesById = new Map<string, IActivity>();
  private _subagentsById = new Map<string, ISubagentRun>();
  private _reportedLateFrame = false;
  private _droppedDiagnostics = 0;
}

/** Text or reasoning from another subagent starts a new block. */
function sameSubagent(
  a: ISubagentTag | undefined,
  b: ISubagentTag | undefined
): boolean {
  return (a?.id ?? null) === (b?.id ?? null);
}

/** docs/protocol.md §4.3: message ids decide when both sides have one, else the node does. */
function continuesTextBlock(
  block: ITextBlock,
  node: string | null,
  messageId: string | null
): boolean {
  if (block.messageId !== null && messageId !== null) {
    return block.messageId === messageId;
  }
  return block.node === node;
}
