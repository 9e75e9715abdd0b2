/**
 * The interrupts of one run (docs/protocol.md §8.9): the legacy `CUSTOM
 * on_interrupt` signal and the AG-UI 1.0 `RUN_FINISHED.outcome`, each shown
 * once as an interrupt frame even when both announce it, and the ones the
 * run leaves open.
 */
import type {
  IInterruptFrame,
  IWireInterruptRequest
} from '../wire/frame-types';
import { normalizeInterrupt } from '../wire/interrupts';
import { isObject } from '../wire/json';
import { stringField, type IAguiEvent } from './events';
import type { EventHandlers, RunContext } from './run-context';
import type { IOpenInterrupt } from './thread';

export class InterruptMapping {
  /** `argsOf`: the parsed arguments this run streamed for a tool call. */
  constructor(
    private readonly _run: RunContext,
    private readonly _argsOf: (callId: string | null) => unknown
  ) {}

  readonly handlers: EventHandlers = {
    CUSTOM: event => {
      if (event.name === 'on_interrupt') {
        this._legacyInterrupt(event);
      }
    }
  };

  /** The interrupts this run announced, in order. */
  open(): IOpenInterrupt[] {
    return this._interrupts.map(known => known.open);
  }

  /** An `Interrupt` of `RUN_FINISHED.outcome` (AG-UI 1.0). */
  outcomeInterrupt(interrupt: unknown): void {
    if (!isObject(interrupt) || typeof interrupt.id !== 'string') {
      this._run.problem('an outcome interrupt without a string "id": ignored');
      return;
    }
    const metadata = isObject(interrupt.metadata) ? interrupt.metadata : {};
    const langgraph = isObject(metadata.langgraph) ? metadata.langgraph : {};
    const callId = stringField(interrupt, 'toolCallId');
    const request: IWireInterruptRequest = {
      reason: stringField(interrupt, 'reason') ?? '',
      message: stringField(interrupt, 'message'),
      response_schema: isObject(interrupt.responseSchema)
        ? interrupt.responseSchema
        : null,
      expires_at: stringField(interrupt, 'expiresAt'),
      tool_call_id: callId
    };
    let value = langgraph.raw;
    if (value === undefined) {
      value = {
        action_requests: [
          {
            name:
              (callId === null
                ? undefined
                : this._run.thread.callNames.get(callId)) ?? request.reason,
            args: this._argsOf(callId),
            description: request.message ?? request.reason
          }
        ]
      };
    }
    // A LangGraph review keeps its decisions; anything else, and anything
    // with a response schema, is answered with a payload (docs/protocol.md §8.9).
    const isReview = langgraph.raw !== undefined && !request.response_schema;
    this._emitInterrupt(value, interrupt.id, isReview ? null : request);
  }

  /** `CUSTOM on_interrupt`: the value is a JSON string, or a plain string. */
  private _legacyInterrupt(event: IAguiEvent): void {
    let value = event.value;
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch {
        // A bare-string interrupt: the string is the question.
      }
    }
    const id = isObject(event.rawEvent)
      ? stringField(event.rawEvent, 'id')
      : null;
    this._emitInterrupt(value, id, requestOfValue(value));
  }

  private _emitInterrupt(
    value: unknown,
    id: string | null,
    request: IWireInterruptRequest | null
  ): void {
    const out = this._run.out;
    const frame: IInterruptFrame = {
      status: 'interrupt',
      interrupt: normalizeInterrupt(value),
      ...(request ? { request } : {})
    };
    const signature = JSON.stringify(frame);
    if (id !== null) {
      // Both signals may announce one interrupt: show it once (docs/protocol.md §8.9).
      if (this._interrupts.some(known => known.open.id === id)) {
        return;
      }
      // The legacy signal without an id, then the outcome with one: the
      // same interrupt, which now has its id.
      const twin = this._interrupts.find(
        known => known.open.id === null && known.signature === signature
      );
      if (twin) {
        twin.open.id = id;
        out.frame({ ...frame, interrupt_ids: [id] });
        return;
      }
    }
    this._interrupts.push({
      open: {
        id,
        rows: request ? 0 : Math.max(1, frame.interrupt.action_requests.length),
        ...(request ? { request: true } : {})
      },
      signature
    });
    out.frame(id === null ? frame : { ...frame, interrupt_ids: [id] });
  }

  /** The interrupts this run announced, each with its frame's signature. */
  private readonly _interrupts: { open: IOpenInterrupt; signature: string }[] =
    [];
}

/**
 * The request of a LangGraph interrupt value that carries a response schema,
 * read the way ag-ui-langgraph builds an outcome `Interrupt` from it
 * (`lg_interrupt_to_agui`), so both signals of one interrupt agree.
 */
function requestOfValue(value: unknown): IWireInterruptRequest | null {
  if (!isObject(value)) {
    return null;
  }
  const schema = value.responseSchema ?? value.response_schema;
  if (!isObject(schema)) {
    return null;
  }
  const text = (...keys: string[]): string | null =>
    keys.map(key => stringField(value, key)).find(found => found !== null) ??
    null;
  return {
    reason: text('reason') ?? 'langgraph:interrupt',
    message: text('message'),
    response_schema: schema,
    expires_at: text('expiresAt', 'expires_at'),
    tool_call_id: text('toolCallId', 'tool_call_id')
  };
}
