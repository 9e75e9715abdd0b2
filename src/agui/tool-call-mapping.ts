/**
 * The tool calls of one run: argument text buffered from `TOOL_CALL_START`
 * to `TOOL_CALL_END` and parsed only then (docs/protocol.md §8.7), results
 * delivered with the failure the side channels recorded, and the calls of
 * offered client tools the run leaves unanswered (docs/protocol.md §8.11).
 */
import type { IClientToolCall } from '../wire/turn';
import { contentText, stringField, type IAguiEvent } from './events';
import { type EventHandlers, type RunContext, subagentOf } from './run-context';
import type { ToolErrorLog } from './tool-errors';
import { parseArgs, toolCallFrame, toolResultFrame } from './tool-frames';

interface IToolCallBuffer {
  name: string;
  args: string;
  subagentRunId: unknown;
  ended: boolean;
}

export class ToolCallMapping {
  constructor(
    private readonly _run: RunContext,
    private readonly _errors: ToolErrorLog
  ) {}

  readonly handlers: EventHandlers = {
    TOOL_CALL_START: event => this._toolStart(event),
    TOOL_CALL_ARGS: event => this._toolArgs(event),
    TOOL_CALL_END: event => this._toolEnd(event),
    TOOL_CALL_RESULT: event => this._toolResult(event),
    RAW: event => this._errors.record(event.event)
  };

  /** The calls still open, described for the run's end diagnostic. */
  stillOpen(): string[] {
    const ids = this._openCalls().map(([id]) => id);
    return ids.length > 0 ? [`tool call(s) ${ids.join(', ')}`] : [];
  }

  /** Deliver the calls still open with the arguments received so far. */
  deliverOpen(): void {
    for (const [id, call] of this._openCalls()) {
      call.ended = true;
      this._announceCall(id, call);
    }
  }

  /** The parsed arguments this run streamed for `callId`; `{}` when none. */
  argsOf(callId: string | null): unknown {
    const call = callId === null ? undefined : this._calls.get(callId);
    return call ? parseArgs(call.args) : {};
  }

  /**
   * The calls of this run to the panel's offered tools that no tool message
   * answers: the ones `pendingToolCallIds` names when the producer gave
   * them, else those the stream shows unanswered.
   */
  clientCalls(pendingIds: unknown): IClientToolCall[] {
    const thread = this._run.thread;
    const offered = thread.offeredTools;
    const history = thread.history;
    const runCalls = this._run.runCalls;
    const named = Array.isArray(pendingIds)
      ? pendingIds.filter((id): id is string => typeof id === 'string')
      : [];
    // Only calls this run delivered: each has its card in the turn.
    const ids =
      named.length > 0 ? named.filter(id => runCalls.has(id)) : [...runCalls];
    return ids.flatMap(id => {
      const name = thread.callNames.get(id);
      if (name === undefined || !offered.has(name) || history.isAnswered(id)) {
        return [];
      }
      return [{ id, name, args: parseArgs(history.argsOf(id) ?? '') }];
    });
  }

  private _openCalls(): [string, IToolCallBuffer][] {
    return [...this._calls].filter(([, call]) => !call.ended);
  }

  private _toolStart(event: IAguiEvent): void {
    const id = this._run.requireId(event, 'toolCallId');
    if (id === null) {
      return;
    }
    if (this._calls.get(id)?.ended === false) {
      this._run.problem('duplicate TOOL_CALL_START for tool call %1', id);
    }
    const name = stringField(event, 'toolCallName') || 'tool';
    this._run.thread.callNames.set(id, name);
    this._run.thread.history.startCall(
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
    const id = this._run.requireId(event, 'toolCallId');
    if (id === null) {
      return;
    }
    let call = this._calls.get(id);
    if (!call || call.ended) {
      this._run.problem(
        'TOOL_CALL_ARGS for tool call %1, which is not open',
        id
      );
    }
    if (!call) {
      // Keep the arguments; TOOL_CALL_END (if it comes) shows them.
      call = {
        name: this._run.thread.callNames.get(id) ?? 'tool',
        args: '',
        subagentRunId: event.subagentRunId,
        ended: false
      };
      this._calls.set(id, call);
    }
    const delta = stringField(event, 'delta') ?? '';
    call.args += delta;
    this._run.thread.history.appendArgs(id, delta);
  }

  private _toolEnd(event: IAguiEvent): void {
    const id = this._run.requireId(event, 'toolCallId');
    if (id === null) {
      return;
    }
    const call = this._calls.get(id);
    if (!call || call.ended) {
      this._run.problem(
        'TOOL_CALL_END for tool call %1, which is not open',
        id
      );
      return;
    }
    call.ended = true;
    this._announceCall(id, call);
  }

  /** Arguments are parsed only here, once complete (docs/protocol.md §8.7). */
  private _announceCall(id: string, call: IToolCallBuffer): void {
    const thread = this._run.thread;
    thread.deliveredCalls.add(id);
    if (call.args) {
      thread.argsPending.delete(id);
    } else {
      // No argument text (quirk 3): `{}` now, the snapshot may backfill.
      thread.argsPending.add(id);
    }
    this._run.emit(toolCallFrame(call.name, call.args, id), call.subagentRunId);
  }

  private _toolResult(event: IAguiEvent): void {
    const callId = stringField(event, 'toolCallId');
    const name = this._checkResultOrder(callId);
    const failed = this._errors.take(callId, name);
    const messageId = stringField(event, 'messageId');
    const thread = this._run.thread;
    for (const id of [callId, messageId]) {
      if (id !== null) {
        thread.deliveredResults.add(id);
      }
    }
    const content = contentText(event.content);
    if (callId !== null) {
      thread.history.addToolResult(
        messageId ?? callId,
        callId,
        content,
        failed ? 'error' : null,
        subagentOf(event)
      );
    }
    this._run.emit(
      toolResultFrame(content, callId, name, failed),
      event.subagentRunId
    );
  }

  /**
   * Report a result without its call, or before its call ended (then the
   * call is delivered first); the name of the tool that answered.
   */
  private _checkResultOrder(callId: string | null): string {
    if (callId === null) {
      this._run.problem('TOOL_CALL_RESULT without a toolCallId');
      return 'tool';
    }
    const call = this._calls.get(callId);
    const knownName = this._run.thread.callNames.get(callId);
    if (call && !call.ended) {
      this._run.problem(
        'TOOL_CALL_RESULT for tool call %1 before its TOOL_CALL_END',
        callId
      );
      this._announceCall(callId, call);
    } else if (!call && knownName === undefined) {
      this._run.problem('TOOL_CALL_RESULT for unknown tool call %1', callId);
    }
    return call?.name ?? knownName ?? 'tool';
  }

  private readonly _calls = new Map<string, IToolCallBuffer>();
}
