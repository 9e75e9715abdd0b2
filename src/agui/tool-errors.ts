/**
 * Which tool calls failed (docs/protocol.md §8.7). `TOOL_CALL_RESULT` has no error
 * flag, so failures are read from the LangGraph adapter's side channels: a
 * `RAW` `on_tool_error`, or `on_tool_end` whose output has `status: "error"`
 * (keyed by tool-call id when the event carries one, else counted by tool
 * name, as langstage-core's `_ToolTracker` does), and error-status
 * ToolMessages in a `STATE_SNAPSHOT` (a human rejection in LangChain's HITL
 * middleware never runs the tool, so only the state shows it failed).
 */
import { isObject } from '../wire/json';
import { stringField } from './events';

export class ToolErrorLog {
  /** Note one `RAW` event's `event` payload. */
  record(raw: unknown): void {
    if (!isObject(raw)) {
      return;
    }
    const kind = raw.event;
    if (kind !== 'on_tool_error' && kind !== 'on_tool_end') {
      return;
    }
    const data = isObject(raw.data) ? raw.data : {};
    const output = isObject(data.output) ? data.output : {};
    if (kind === 'on_tool_end' && output.status !== 'error') {
      return;
    }
    const callId =
      stringField(data, 'tool_call_id') ?? stringField(output, 'tool_call_id');
    if (callId !== null) {
      this._failedCalls.add(callId);
      return;
    }
    const name = stringField(raw, 'name');
    if (name) {
      this._failuresByName.set(name, (this._failuresByName.get(name) ?? 0) + 1);
    }
  }

  /** Note the error-status ToolMessages of a LangGraph state's `messages`. */
  recordStateMessages(messages: unknown): void {
    if (!Array.isArray(messages)) {
      return;
    }
    for (const message of messages) {
      if (
        isObject(message) &&
        message.type === 'tool' &&
        message.status === 'error' &&
        typeof message.tool_call_id === 'string'
      ) {
        this._failedCalls.add(message.tool_call_id);
      }
    }
  }

  /** Whether the result of `callId` (tool `name`) failed; consumes the record. */
  take(callId: string | null, name: string): boolean {
    if (callId !== null && this._failedCalls.delete(callId)) {
      return true;
    }
    const count = this._failuresByName.get(name) ?? 0;
    if (count > 0) {
      this._failuresByName.set(name, count - 1);
      return true;
    }
    return false;
  }

  private readonly _failedCalls = new Set<string>();
  private readonly _failuresByName = new Map<string, number>();
}
