/**
 * The AG-UI → chunk-wire state machine of one run (docs/protocol.md §8.5).
 *
 * Events go in; typed chunk-wire frames (the shapes `decodeFrame` yields,
 * built with the wire's builders) and diagnostics come out, so one reducer
 * renders both wires. Memory that outlives a run (ids already
 * delivered, open interrupts, state) lives in the thread's `AguiThread`.
 *
 * Ordering rules of the protocol are checked as events pass; a violation is
 * reported once as a diagnostic and the content is still delivered. After
 * the first terminal event (`RUN_FINISHED`, `RUN_ERROR`) the run is latched:
 * later events are dropped with a console warning and a diagnostic.
 */
import {
  activityFrame,
  stateFrame,
  streamingFrame,
  usageFrame
} from '../wire/frame-builders';
import type {
  IActivityFrame,
  ICancelledFrame,
  IInterruptFrame,
  IStreamingFrame,
  ISubagentFrame,
  IWireInterruptRequest,
  WireFrame
} from '../wire/frame-types';
import { normalizeInterrupt } from '../wire/interrupts';
import { type IProblem, problem, problemText } from '../wire/problem';
import { isObject, type JsonObject } from '../wire/json';
import type { IClientToolCall } from '../wire/turn';
import { ChunkNormaliser } from './chunks';
import {
  contentText,
  stringField,
  type AguiEventType,
  type IAguiEvent,
  type LegacyEventType
} from './events';
import { patched } from './patch';
import { reconcileSnapshot } from './snapshot';
import type { AguiThread, IOpenInterrupt } from './thread';
import { parseArgs, toolCallFrame, toolResultFrame } from './tool-frames';
import { ToolErrorLog } from './tool-errors';

/** Where a run's frames and diagnostics go. */
export interface IFrameOutput {
  frame(frame: WireFrame): void;
  diagnostic(problem: IProblem): void;
  /**
   * The run finished (`RUN_FINISHED`, before its terminal frame): the
   * thread's memory to keep, and the calls of offered client tools it left
   * unanswered (docs/protocol.md §8.8, §8.11).
   */
  finished?(memory: JsonObject, clientCalls: IClientToolCall[]): void;
}

/** The node core names text with before any step is known. */
const DEFAULT_NODE = 'agent';

/** How a turn the user stopped ends, in core's words. */
export function cancelledByUser(): ICancelledFrame {
  return { status: 'cancelled', message: 'Execution cancelled by user' };
}

interface IToolCallBuffer {
  name: string;
  args: string;
  subagentRunId: unknown;
  ended: boolean;
}

interface IOpenText {
  /** A non-assistant role: its content is not part of the answer. */
  muted: boolean;
}

export class AguiRunMapper {
  constructor(
    private readonly _thread: AguiThread,
    private readonly _out: IFrameOutput
  ) {}

  /** A terminal event was applied; later events are dropped. */
  get terminal(): boolean {
    return this._terminal !== null;
  }

  /** The run id from `RUN_STARTED`, once seen. */
  get runId(): string | null {
    return this._runId;
  }

  /**
   * The stream is over. Tool calls still open are delivered with the
   * arguments received so far; without a terminal event the transport's
   * end-of-stream rule applies.
   */
  endOfStream(): void {
    if (this._terminal === null) {
      this._flushOpen('the stream ended');
    }
  }

  /** We asked the producer to stop: its `RUN_ERROR` now means cancelled. */
  noteCancelRequested(): void {
    this._cancelRequested = true;
  }

  apply(event: IAguiEvent): void {
    if (this._terminal !== null) {
      this._dropLate(event);
      return;
    }
    if (!this._started && event.type !== 'RUN_STARTED') {
      this._problem('the first event is %1, not RUN_STARTED', event.type);
      this._started = true;
    }
    for (const normal of this._chunks.normalise(event, found =>
      this._report(found)
    )) {
      this._dispatch(normal);
      if (this._terminal !== null) {
        return;
      }
    }
  }

  private _dispatch(event: IAguiEvent): void {
    const type = event.type as AguiEventType | LegacyEventType;
    switch (type) {
      case 'RUN_STARTED':
        return this._runStarted(event);
      case 'RUN_FINISHED':
        return this._runFinished(event);
      case 'RUN_ERROR':
        return this._runError(event);
      case 'STEP_STARTED':
        this._node = stringField(event, 'stepName') ?? this._node;
        return;
      case 'TEXT_MESSAGE_START':
        return this._textStart(event);
      case 'TEXT_MESSAGE_CONTENT':
        return this._textContent(event);
      case 'TEXT_MESSAGE_END':
        return this._textEnd(event);
      case 'REASONING_MESSAGE_START':
        return this._reasoningStart(event);
      case 'REASONING_MESSAGE_CONTENT':
        return this._reasoningContent(event);
      case 'REASONING_MESSAGE_END':
        return this._reasoningEnd(event);
      case 'THINKING_TEXT_MESSAGE_CONTENT':
        return this._emitReasoning(event);
      case 'TOOL_CALL_START':
        return this._toolStart(event);
      case 'TOOL_CALL_ARGS':
        return this._toolArgs(event);
      case 'TOOL_CALL_END':
        return this._toolEnd(event);
      case 'TOOL_CALL_RESULT':
        return this._toolResult(event);
      case 'CUSTOM':
        if (event.name === 'on_interrupt') {
          this._legacyInterrupt(event);
        }
        return;
      case 'MESSAGES_SNAPSHOT':
        return this._messagesSnapshot(event);
      case 'STATE_SNAPSHOT':
        return this._stateSnapshot(event);
      case 'STATE_DELTA':
        return this._stateDelta(event);
      case 'ACTIVITY_SNAPSHOT':
        return this._activitySnapshot(event);
      case 'ACTIVITY_DELTA':
        return this._activityDelta(event);
      case 'SUBAGENT_STARTED':
      case 'SUBAGENT_FINISHED':
      case 'SUBAGENT_ERROR':
        return this._subagent(type, event);
      case 'RAW':
        this._toolErrors.record(event.event);
        return;
      // Nothing to show: step ends, reasoning envelopes, encrypted reasoning
      // and the 0.x thinking envelopes.
      case 'STEP_FINISHED':
      case 'REASONING_START':
      case 'REASONING_END':
      case 'REASONING_ENCRYPTED_VALUE':
      case 'THINKING_START':
      case 'THINKING_END':
      case 'THINKING_TEXT_MESSAGE_START':
      case 'THINKING_TEXT_MESSAGE_END':
        return;
      // Normalised away by ChunkNormaliser before they get here.
      case 'TEXT_MESSAGE_CHUNK':
      case 'TOOL_CALL_CHUNK':
      case 'REASONING_MESSAGE_CHUNK':
        return;
      default: {
        const unknown = problem('unknown event type %1: ignored', event.type);
        if (!this._reported.has(problemText(unknown))) {
          console.warn(`Agent Panel: AG-UI ${problemText(unknown)}`);
        }
        this._report(unknown);
      }
    }
  }

  // -- run lifecycle -------------------------------------------------------

  private _runStarted(event: IAguiEvent): void {
    const runId = stringField(event, 'runId');
    if (this._sawRunStarted) {
      if (runId === this._runId) {
        this._problem('duplicate RUN_STARTED for run %1', String(runId));
      } else {
        this._problem(
          'RUN_STARTED for run %1 while run %2 is open',
          String(runId),
          String(this._runId)
        );
      }
      return;
    }
    this._sawRunStarted = true;
    this._started = true;
    this._runId = runId;
  }

  private _runFinished(event: IAguiEvent): void {
    this._flushOpen('RUN_FINISHED');
    const outcome = isObject(event.outcome) ? event.outcome : null;
    if (outcome?.type === 'interrupt') {
      const interrupts = Array.isArray(outcome.interrupts)
        ? outcome.interrupts
        : [];
      for (const interrupt of interrupts) {
        this._outcomeInterrupt(interrupt);
      }
    }
    const cancelled = outcome?.type === 'cancelled';
    const open = cancelled ? [] : this._interrupts.map(known => known.open);
    this._thread.openInterrupts = open;
    this._usage(event.usage);
    const calls =
      open.length > 0 || cancelled
        ? []
        : this._clientCalls(outcome?.pendingToolCallIds);
    this._out.finished?.(this._thread.memory(), calls);
    if (cancelled) {
      this._out.frame({ status: 'cancelled', message: 'Run cancelled' });
    } else {
      this._out.frame({
        status: 'complete',
        outcome: open.length > 0 ? 'interrupted' : 'complete'
      });
    }
    this._terminal = 'RUN_FINISHED';
  }

  private _runError(event: IAguiEvent): void {
    this._usage(event.usage);
    if (event.code === 'abort' || this._cancelRequested) {
      this._out.frame(cancelledByUser());
    } else {
      this._out.frame({
        status: 'error',
        error: stringField(event, 'message') || 'unknown error',
        traceback: null
      });
    }
    this._thread.openInterrupts = [];
    this._terminal = 'RUN_ERROR';
  }

  /** `usage` of a terminal event, summed over its models (`TokenUsage[]`). */
  private _usage(usage: unknown): void {
    const entries = Array.isArray(usage) ? usage.filter(isObject) : [];
    const total = (key: string): number | null => {
      const counts = entries
        .map(entry => entry[key])
        .filter(
          (count): count is number =>
            typeof count === 'number' && Number.isFinite(count)
        );
      return counts.length > 0 ? counts.reduce((a, b) => a + b, 0) : null;
    };
    const input = total('inputTokens');
    const output = total('outputTokens');
    if (input !== null || output !== null) {
      this._out.frame(usageFrame(input, output));
    }
  }

  /**
   * The calls of this run to the panel's offered tools that no tool message
   * answers: the ones `pendingToolCallIds` names when the producer gave
   * them, else those the stream shows unanswered.
   */
  private _clientCalls(pendingIds: unknown): IClientToolCall[] {
    const offered = this._thread.offeredTools;
    const history = this._thread.history;
    const named = Array.isArray(pendingIds)
      ? pendingIds.filter((id): id is string => typeof id === 'string')
      : [];
    // Only calls this run delivered: each has its card in the turn.
    const ids =
      named.length > 0
        ? named.filter(id => this._runCalls.has(id))
        : [...this._runCalls];
    return ids.flatMap(id => {
      const name = this._thread.callNames.get(id);
      if (name === undefined || !offered.has(name) || history.isAnswered(id)) {
        return [];
      }
      return [{ id, name, args: parseArgs(history.argsOf(id) ?? '') }];
    });
  }

  /** Report what is left open at `when`; deliver the open calls. */
  private _flushOpen(when: string): void {
    const open: string[] = [];
    if (this._openText.size > 0) {
      open.push(`text message(s) ${[...this._openText.keys()].join(', ')}`);
    }
    if (this._openReasoning.size > 0) {
      open.push(`reasoning message(s) ${[...this._openReasoning].join(', ')}`);
    }
    const openCalls = [...this._calls].filter(([, call]) => !call.ended);
    if (openCalls.length > 0) {
      open.push(`tool call(s) ${openCalls.map(([id]) => id).join(', ')}`);
    }
    if (open.length > 0) {
      this._problem('%1 with %2 still open', when, open.join(' and '));
    }
    for (const [id, call] of openCalls) {
      call.ended = true;
      this._announceCall(id, call);
    }
  }

  private _dropLate(event: IAguiEvent): void {
    if (this._reportedLate) {
      return;
    }
    this._reportedLate = true;
    const late = problem(
      'ignored %1 and any later events: the run already ended with %2',
      event.type,
      String(this._terminal)
    );
    console.warn(`Agent Panel: ${problemText(late)}`);
    this._out.diagnostic(late);
  }

  // -- text and reasoning --------------------------------------------------

  private _textStart(event: IAguiEvent): void {
    const id = this._requireId(event, 'messageId');
    if (id === null) {
      return;
    }
    if (this._openText.has(id)) {
      this._problem('duplicate TEXT_MESSAGE_START for message %1', id);
    }
    const role = stringField(event, 'role');
    const muted = role !== null && role !== 'assistant';
    // A message id may be reopened after its end (quirk 1): allowed.
    this._openText.set(id, { muted });
    if (!muted) {
      this._thread.history.startText(id, subagentOf(event));
    }
  }

  private _textContent(event: IAguiEvent): void {
    const id = stringField(event, 'messageId');
    const open = id === null ? undefined : this._openText.get(id);
    if (!open) {
      this._problem(
        'TEXT_MESSAGE_CONTENT for message %1 with no open TEXT_MESSAGE_START',
        id
      );
    } else if (open.muted) {
      return;
    }
    const delta = stringField(event, 'delta');
    if (!delta) {
      return;
    }
    if (id !== null) {
      this._thread.deliveredMessages.add(id);
      this._thread.history.appendText(id, delta, subagentOf(event));
    }
    this._emit(
      streamingFrame({ chunk: delta, node: this._node, message_id: id }),
      event.subagentRunId
    );
  }

  private _textEnd(event: IAguiEvent): void {
    const id = stringField(event, 'messageId');
    if (id === null || !this._openText.delete(id)) {
      this._problem('TEXT_MESSAGE_END for message %1, which is not open', id);
    }
  }

  private _reasoningStart(event: IAguiEvent): void {
    const id = this._requireId(event, 'messageId');
    if (id === null) {
      return;
    }
    if (this._openReasoning.has(id)) {
      this._problem('duplicate REASONING_MESSAGE_START for message %1', id);
    }
    this._openReasoning.add(id);
  }

  private _reasoningContent(event: IAguiEvent): void {
    const id = stringField(event, 'messageId');
    if (id === null || !this._openReasoning.has(id)) {
      this._problem(
        'REASONING_MESSAGE_CONTENT for message %1 with no open REASONING_MESSAGE_START',
        id
      );
    }
    this._emitReasoning(event);
  }

  private _reasoningEnd(event: IAguiEvent): void {
    const id = stringField(event, 'messageId');
    if (id === null || !this._openReasoning.delete(id)) {
      this._problem(
        'REASONING_MESSAGE_END for message %1, which is not open',
        id
      );
    }
  }

  private _emitReasoning(event: IAguiEvent): void {
    const delta = stringField(event, 'delta');
    if (delta) {
      this._emit(
        streamingFrame({ reasoning: delta, node: this._node }),
        event.subagentRunId
      );
    }
  }

  // -- tool calls ----------------------------------------------------------

  private _toolStart(event: IAguiEvent): void {
    const id = this._requireId(event, 'toolCallId');
    if (id === null) {
      return;
    }
    if (this._calls.get(id)?.ended === false) {
      this._problem('duplicate TOOL_CALL_START for tool call %1', id);
    }
    const name = stringField(event, 'toolCallName') || 'tool';
    this._thread.callNames.set(id, name);
    this._thread.history.startCall(
      id,
      name,
      stringField(event, 'parentMessageId'),
      subagentOf(event)
    );
    this._calls.set(id, {
      name,
      args: '',
      subagentRunId: event.subagentRunId,
      ended: false
    });
  }

  private _toolArgs(event: IAguiEvent): void {
    const id = this._requireId(event, 'toolCallId');
    if (id === null) {
      return;
    }
    let call = this._calls.get(id);
    if (!call || call.ended) {
      this._problem('TOOL_CALL_ARGS for tool call %1, which is not open', id);
    }
    if (!call) {
      // Keep the arguments; TOOL_CALL_END (if it comes) shows them.
      call = {
        name: this._thread.callNames.get(id) ?? 'tool',
        args: '',
        subagentRunId: event.subagentRunId,
        ended: false
      };
      this._calls.set(id, call);
    }
    const delta = stringField(event, 'delta') ?? '';
    call.args += delta;
    this._thread.history.appendArgs(id, delta);
  }

  private _toolEnd(event: IAguiEvent): void {
    const id = this._requireId(event, 'toolCallId');
    if (id === null) {
      return;
    }
    const call = this._calls.get(id);
    if (!call || call.ended) {
      this._problem('TOOL_CALL_END for tool call %1, which is not open', id);
      return;
    }
    call.ended = true;
    this._announceCall(id, call);
  }

  /** Arguments are parsed only here, once complete (docs/protocol.md §8.7). */
  private _announceCall(id: string, call: IToolCallBuffer): void {
    const thread = this._thread;
    thread.deliveredCalls.add(id);
    if (call.args) {
      thread.argsPending.delete(id);
    } else {
      // No argument text (quirk 3): `{}` now, the snapshot may backfill.
      thread.argsPending.add(id);
    }
    this._emit(toolCallFrame(call.name, call.args, id), call.subagentRunId);
  }

  private _toolResult(event: IAguiEvent): void {
    const callId = stringField(event, 'toolCallId');
    if (callId === null) {
      this._problem('TOOL_CALL_RESULT without a toolCallId');
    }
    const call = callId === null ? undefined : this._calls.get(callId);
    if (call && !call.ended && callId !== null) {
      this._problem(
        'TOOL_CALL_RESULT for tool call %1 before its TOOL_CALL_END',
        callId
      );
      this._announceCall(callId, call);
    } else if (
      callId !== null &&
      !call &&
      !this._thread.callNames.has(callId)
    ) {
      this._problem('TOOL_CALL_RESULT for unknown tool call %1', callId);
    }
    const name =
      call?.name ??
      (callId === null ? undefined : this._thread.callNames.get(callId)) ??
      'tool';
    const failed = this._toolErrors.take(callId, name);
    const messageId = stringField(event, 'messageId');
    for (const id of [callId, messageId]) {
      if (id !== null) {
        this._thread.deliveredResults.add(id);
      }
    }
    const content = contentText(event.content);
    if (callId !== null) {
      this._thread.history.addToolResult(
        messageId ?? callId,
        callId,
        content,
        failed ? 'error' : null,
        subagentOf(event)
      );
    }
    this._emit(
      toolResultFrame(content, callId, name, failed),
      event.subagentRunId
    );
  }

  // -- interrupts ----------------------------------------------------------

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

  /** An `Interrupt` of `RUN_FINISHED.outcome` (AG-UI 1.0). */
  private _outcomeInterrupt(interrupt: unknown): void {
    if (!isObject(interrupt) || typeof interrupt.id !== 'string') {
      this._problem('an outcome interrupt without a string "id": ignored');
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
      const call = callId === null ? undefined : this._calls.get(callId);
      value = {
        action_requests: [
          {
            name:
              (callId === null
                ? undefined
                : this._thread.callNames.get(callId)) ?? request.reason,
            args: call ? parseArgs(call.args) : {},
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

  private _emitInterrupt(
    value: unknown,
    id: string | null,
    request: IWireInterruptRequest | null
  ): void {
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
        this._out.frame({ ...frame, interrupt_ids: [id] });
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
    this._out.frame(id === null ? frame : { ...frame, interrupt_ids: [id] });
  }

  // -- snapshots, state, activities, subagents ----------------------------

  private _messagesSnapshot(event: IAguiEvent): void {
    reconcileSnapshot(event.messages, {
      thread: this._thread,
      node: this._node,
      emit: (frame, subagentRunId) => this._emit(frame, subagentRunId),
      problem: found => this._report(found),
      toolFailed: (callId, name) => this._toolErrors.take(callId, name)
    });
    // The snapshot is the thread: it replaces the client's message list.
    if (Array.isArray(event.messages)) {
      this._thread.history.replace(event.messages);
    }
  }

  private _stateSnapshot(event: IAguiEvent): void {
    if (!('snapshot' in event)) {
      this._problem('STATE_SNAPSHOT without a "snapshot": ignored');
      return;
    }
    this._setState(event.snapshot);
    if (isObject(event.snapshot)) {
      this._toolErrors.recordStateMessages(event.snapshot.messages);
    }
  }

  private _stateDelta(event: IAguiEvent): void {
    const result = patched(this._thread.state, event.delta);
    if (result.ok) {
      this._setState(result.value);
    } else {
      this._problem(
        'STATE_DELTA not applied (%1); the state is kept as it was',
        result.reason
      );
    }
  }

  private _setState(state: unknown): void {
    this._thread.state = state;
    this._out.frame(stateFrame(state));
  }

  private _activitySnapshot(event: IAguiEvent): void {
    const id = this._requireId(event, 'messageId');
    const type = stringField(event, 'activityType');
    if (id === null || type === null) {
      return this._problem('ACTIVITY_SNAPSHOT without an activityType');
    }
    const known = this._thread.activities.get(id);
    // `replace: false` asks to keep existing content (only deltas change it).
    if (known && event.replace === false) {
      return;
    }
    this._setActivity(id, type, event.content ?? {}, event);
  }

  private _activityDelta(event: IAguiEvent): void {
    const id = this._requireId(event, 'messageId');
    if (id === null) {
      return;
    }
    const known = this._thread.activities.get(id);
    if (!known) {
      return this._problem('ACTIVITY_DELTA for unknown activity %1', id);
    }
    const result = patched(known.content, event.patch);
    if (!result.ok) {
      return this._problem(
        'ACTIVITY_DELTA for activity %1 not applied (%2)',
        id,
        result.reason
      );
    }
    const type = stringField(event, 'activityType') ?? known.type;
    this._setActivity(id, type, result.value, event);
  }

  private _setActivity(
    id: string,
    type: string,
    content: unknown,
    event: IAguiEvent
  ): void {
    this._thread.activities.set(id, { type, content });
    this._thread.history.setActivity(id, type, content, subagentOf(event));
    this._emit(activityFrame(id, type, content), event.subagentRunId);
  }

  private _subagent(
    type: 'SUBAGENT_STARTED' | 'SUBAGENT_FINISHED' | 'SUBAGENT_ERROR',
    event: IAguiEvent
  ): void {
    const id = this._requireId(event, 'subagentRunId');
    if (id === null) {
      return;
    }
    const names = this._thread.subagentNames;
    const name = stringField(event, 'name');
    if (type === 'SUBAGENT_STARTED') {
      names.set(id, name ?? id);
    } else if (!names.has(id)) {
      this._problem('%1 for subagent run %2, which never started', type, id);
    }
    const frame: ISubagentFrame = {
      status: 'subagent',
      id,
      name: names.get(id) ?? null,
      description: stringField(event, 'description'),
      parent_id: stringField(event, 'parentSubagentRunId'),
      subagent_status: 'running',
      message: null
    };
    if (type === 'SUBAGENT_ERROR') {
      const message = stringField(event, 'message') || 'unknown error';
      frame.subagent_status = 'error';
      frame.message = message;
      this._problem('subagent %1 failed: %2', names.get(id) ?? id, message);
    } else if (type === 'SUBAGENT_FINISHED') {
      const outcome = isObject(event.outcome) ? event.outcome : {};
      const waiting = Array.isArray(outcome.interruptIds)
        ? outcome.interruptIds.filter(item => typeof item === 'string')
        : [];
      frame.subagent_status =
        outcome.type === 'suspended' ? 'suspended' : 'finished';
      frame.message = waiting.length > 0 ? waiting.join(', ') : null;
    }
    this._out.frame(frame);
  }

  // -- helpers -------------------------------------------------------------

  /** Emit a frame, tagged with the subagent the event came from. */
  private _emit(
    frame: IStreamingFrame | IActivityFrame,
    subagentRunId: unknown
  ): void {
    const subagent = this._thread.subagentTag(subagentRunId);
    for (const call of frame.status === 'streaming'
      ? (frame.tool_calls ?? [])
      : []) {
      if (call.id !== null) {
        this._runCalls.add(call.id);
      }
    }
    this._out.frame(subagent ? { ...frame, subagent } : frame);
  }

  private _requireId(event: IAguiEvent, key: string): string | null {
    const id = stringField(event, key);
    if (id === null) {
      this._problem('%1 without a string "%2": ignored', event.type, key);
    }
    return id;
  }

  /** A diagnostic, reported once per run however often it recurs. */
  private _problem(template: string, ...args: unknown[]): void {
    this._report(problem(template, ...args));
  }

  private _report(found: IProblem): void {
    const text = problemText(found);
    if (!this._reported.has(text)) {
      this._reported.add(text);
      this._out.diagnostic(found);
    }
  }

  private readonly _chunks = new ChunkNormaliser();
  private readonly _toolErrors = new ToolErrorLog();
  private readonly _calls = new Map<string, IToolCallBuffer>();
  private readonly _openText = new Map<string, IOpenText>();
  private readonly _openReasoning = new Set<string>();
  /** The interrupts this run announced, each with its frame's signature. */
  private readonly _interrupts: { open: IOpenInterrupt; signature: string }[] =
    [];
  /** Ids of the tool calls this run delivered (streamed or in a snapshot). */
  private readonly _runCalls = new Set<string>();
  private readonly _reported = new Set<string>();
  private _node = DEFAULT_NODE;
  private _runId: string | null = null;
  private _started = false;
  private _sawRunStarted = false;
  private _terminal: string | null = null;
  private _reportedLate = false;
  private _cancelRequested = false;
}

function subagentOf(event: IAguiEvent): string | null {
  return stringField(event, 'subagentRunId');
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
