/**
 * The tool cards of one turn: a call makes a card (or fills in the card of
 * the same id again), a result goes to its call's card, by id or else in
 * call order (contract A, docs/protocol.md §4.5), or to an orphan card.
 */
import type { IWireToolCall, IWireToolResult } from './frame-types';
import { nextItemKey, tagged } from './item-keys';
import { isObject } from './json';
import type { ISubagentTag, IToolCard, ToolStatus } from './types';

/** The marker core appends to a capped tool result (docs/protocol.md §2.2). */
const TRUNCATION_MARKER = '…(truncated)';

/** The card a call or a result went to, and whether it is new to the turn. */
export interface IToolCardChange {
  card: IToolCard;
  isNew: boolean;
}

export class ToolCards {
  /** A tool call: a new card, or the card of an earlier call of the same id. */
  call(
    call: IWireToolCall,
    subagent: ISubagentTag | undefined
  ): IToolCardChange {
    const known = call.id === null ? undefined : this._cardsById.get(call.id);
    if (known) {
      // The AG-UI adapter can backfill a call's arguments under the same id.
      known.name = call.name ?? known.name;
      known.args = call.args;
      known.rawArgs = rawArgsOf(call.args);
      return { card: known, isNew: false };
    }
    const card: IToolCard = {
      kind: 'tool',
      key: nextItemKey(),
      callId: call.id,
      name: call.name ?? 'tool',
      args: call.args,
      rawArgs: rawArgsOf(call.args),
      status: 'pending',
      result: undefined,
      truncated: false,
      durationMs: null,
      orphan: false,
      ...(call.title ? { title: call.title } : {}),
      ...tagged(subagent)
    };
    if (call.id !== null) {
      this._cardsById.set(call.id, card);
    }
    this._callQueue.push(card);
    return { card, isNew: true };
  }

  /** A tool result: on its pending call's card, else on an orphan card. */
  result(
    result: IWireToolResult,
    subagent: ISubagentTag | undefined
  ): IToolCardChange {
    const card =
      result.id === null
        ? this._oldestPendingCard()
        : this._cardsById.get(result.id);
    if (card && card.status === 'pending') {
      fillResult(card, result);
      return { card, isNew: false };
    }
    const orphan: IToolCard = {
      kind: 'tool',
      key: nextItemKey(),
      callId: result.id,
      name: result.name ?? 'tool',
      args: undefined,
      rawArgs: null,
      status: 'pending',
      result: undefined,
      truncated: false,
      durationMs: null,
      orphan: true,
      ...tagged(subagent)
    };
    fillResult(orphan, result);
    return { card: orphan, isNew: true };
  }

  /** FIFO pairing for results without an id (contract A, docs/protocol.md §4.5). */
  private _oldestPendingCard(): IToolCard | undefined {
    while (
      this._callQueueHead < this._callQueue.length &&
      this._callQueue[this._callQueueHead].status !== 'pending'
    ) {
      this._callQueueHead += 1;
    }
    return this._callQueue[this._callQueueHead];
  }

  private _cardsById = new Map<string, IToolCard>();
  private _callQueue: IToolCard[] = [];
  private _callQueueHead = 0;
}

function fillResult(card: IToolCard, result: IWireToolResult): void {
  card.result = result.content;
  card.status = toolStatusOf(result.tool_status);
  card.truncated =
    typeof result.content === 'string' &&
    result.content.endsWith(TRUNCATION_MARKER);
  card.durationMs = result.duration_ms;
}

function toolStatusOf(value: string | null): ToolStatus {
  return value === 'success' || value === 'error' ? value : 'unknown';
}

/** Core sends `{"_raw": text}` when the argument text was not JSON. */
function rawArgsOf(args: unknown): string | null {
  if (!isObject(args)) {
    return null;
  }
  const keys = Object.keys(args);
  return keys.length === 1 && typeof args._raw === 'string' ? args._raw : null;
}
