/**
 * The AG-UI message list of one conversation, as the client keeps it
 * (docs/protocol.md §8.8): built from what the panel sent and what the runs
 * streamed, with the ids the stream gave, and replaced by a
 * `MESSAGES_SNAPSHOT`. It is what `RunAgentInput.messages` carries.
 *
 * Reasoning is not kept from the stream (its ids can differ from the
 * snapshot's); activity messages are kept for the panel but never sent.
 */
import type { Message, UserMessage } from '@ag-ui/core';
import { UUID } from '@lumino/coreutils';
import { isObject, type JsonObject } from '../wire/json';

/** A message of the list: any AG-UI message, as JSON. */
export type HistoryMessage = JsonObject & { id: string; role: string };

/** An assistant tool call in the list (AG-UI `ToolCall`). */
export interface IHistoryCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Who produced a message, when a subagent did (AG-UI `subagentRunId`). */
type Attribution = string | null | undefined;

export class AguiHistory {
  constructor(messages: readonly unknown[] = []) {
    this.replace(messages);
  }

  get messages(): readonly HistoryMessage[] {
    return this._messages;
  }

  /**
   * What an agent is sent: every message but the activity ones (display
   * only, and ag-ui-langgraph refuses the role).
   */
  forAgent(): Message[] {
    return this._messages.filter(
      message => message.role !== 'activity'
    ) as unknown as Message[];
  }

  /** Replace the whole list (a `MESSAGES_SNAPSHOT`, a saved memory). */
  replace(messages: readonly unknown[]): void {
    this._messages = [];
    this._byId.clear();
    this._calls.clear();
    this._answered.clear();
    for (const message of messages) {
      if (
        isObject(message) &&
        typeof message.id === 'string' &&
        typeof message.role === 'string' &&
        !this._byId.has(message.id)
      ) {
        this._append({ ...message } as HistoryMessage);
      }
    }
  }

  addUser(id: string, content: UserMessage['content']): void {
    this._append({ id, role: 'user', content } as HistoryMessage);
  }

  /** `TEXT_MESSAGE_START` of an assistant message (reopening one is allowed). */
  startText(messageId: string, subagent: Attribution): void {
    this._assistant(messageId, subagent);
  }

  /** `TEXT_MESSAGE_CONTENT`: append to that message (started if need be). */
  appendText(messageId: string, delta: string, subagent: Attribution): void {
    const message = this._assistant(messageId, subagent);
    const content = typeof message.content === 'string' ? message.content : '';
    message.content = content + delta;
  }

  /**
   * `TOOL_CALL_START`: the call joins the assistant message it names, else
   * the assistant message that ends the list, else a new one.
   */
  startCall(
    callId: string,
    name: string,
    parentMessageId: string | null,
    subagent: Attribution
  ): void {
    const known = this._calls.get(callId);
    if (known) {
      known.function.name = name;
      return;
    }
    const call: IHistoryCall = {
      id: callId,
      type: 'function',
      function: { name, arguments: '' }
    };
    const parent = this._callParent(parentMessageId, subagent);
    const calls = Array.isArray(parent.toolCalls)
      ? (parent.toolCalls as IHistoryCall[])
      : [];
    parent.toolCalls = [...calls, call];
    this._calls.set(callId, call);
  }

  /** `TOOL_CALL_ARGS`: argument text of a started call. */
  appendArgs(callId: string, delta: string): void {
    const call = this._calls.get(callId);
    if (call) {
      call.function.arguments = call.function.arguments + delta;
    }
  }

  /** A call's complete argument text, when the stream never gave it. */
  setArgs(callId: string, text: string): void {
    const call = this._calls.get(callId);
    if (call && !call.function.arguments) {
      call.function.arguments = text;
    }
  }

  /** `TOOL_CALL_RESULT` or a client tool's result: a `role: "tool"` message. */
  addToolResult(
    messageId: string,
    callId: string,
    content: string,
    error: string | null,
    subagent: Attribution
  ): void {
    if (this._byId.has(messageId)) {
      // Already in the list (a snapshot or an earlier delivery).
      return;
    }
    this._append({
      id: messageId,
      role: 'tool',
      toolCallId: callId,
      content,
      ...(error === null ? {} : { error }),
      ...attribution(subagent)
    });
  }

  /** `ACTIVITY_SNAPSHOT` / `_DELTA`: the activity message at its content. */
  setActivity(
    messageId: string,
    activityType: string,
    content: unknown,
    subagent: Attribution
  ): void {
    const known = this._byId.get(messageId);
    if (known) {
      known.activityType = activityType;
      known.content = content;
      return;
    }
    this._append({
      id: messageId,
      role: 'activity',
      activityType,
      content,
      ...attribution(subagent)
    });
  }

  /** Whether a `role: "tool"` message answers the call. */
  isAnswered(callId: string): boolean {
    return this._answered.has(callId);
  }

  /** The argument text of a call in the list, or null. */
  argsOf(callId: string): string | null {
    return this._calls.get(callId)?.function.arguments ?? null;
  }

  /** Whether the list holds a message with this id. */
  has(messageId: string): boolean {
    return this._byId.has(messageId);
  }

  private _assistant(messageId: string, subagent: Attribution): HistoryMessage {
    const known = this._byId.get(messageId);
    if (known) {
      return known;
    }
    const message: HistoryMessage = {
      id: messageId,
      role: 'assistant',
      content: '',
      ...attribution(subagent)
    };
    this._append(message);
    return message;
  }

  private _callParent(
    parentMessageId: string | null,
    subagent: Attribution
  ): HistoryMessage {
    const named =
      parentMessageId === null ? undefined : this._byId.get(parentMessageId);
    if (named?.role === 'assistant') {
      return named;
    }
    const last = this._messages[this._messages.length - 1];
    if (last?.role === 'assistant') {
      return last;
    }
    // The named id may belong to another role (ag-ui-langgraph names the
    // tool message as the parent of a call announced at tool end).
    const id =
      parentMessageId === null || named ? UUID.uuid4() : parentMessageId;
    return this._assistant(id, subagent);
  }

  private _append(message: HistoryMessage): void {
    this._messages.push(message);
    this._byId.set(message.id, message);
    if (message.role === 'tool' && typeof message.toolCallId === 'string') {
      this._answered.add(message.toolCallId);
    }
    for (const call of callsOf(message)) {
      this._calls.set(call.id, call);
    }
  }

  private _messages: HistoryMessage[] = [];
  private readonly _byId = new Map<string, HistoryMessage>();
  /** Tool calls by id, as held in their assistant message. */
  private readonly _calls = new Map<string, IHistoryCall>();
  /** Call ids a tool message answers. */
  private readonly _answered = new Set<string>();
}

/** The well-formed tool calls of an assistant message. */
export function callsOf(message: JsonObject): IHistoryCall[] {
  return Array.isArray(message.toolCalls)
    ? message.toolCalls.filter(isCall)
    : [];
}

function isCall(value: unknown): value is IHistoryCall {
  return (
    isObject(value) &&
    typeof value.id === 'string' &&
    isObject(value.function) &&
    typeof value.function.name === 'string' &&
    typeof value.function.arguments === 'string'
  );
}

function attribution(subagent: Attribution): { subagentRunId?: string } {
  return typeof subagent === 'string' ? { subagentRunId: subagent } : {};
}
