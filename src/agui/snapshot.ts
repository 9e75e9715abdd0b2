/**
 * `MESSAGES_SNAPSHOT` reconciliation (docs/protocol.md §8.8): frames for what the
 * thread never streamed. The snapshot holds the whole thread, so only the
 * tail after the last user message is read, and every id already delivered
 * in this thread (by streaming or by an earlier snapshot) is skipped.
 */
import { type IProblem, problem } from '../wire/problem';
import { activityFrame, streamingFrame } from '../wire/frame-builders';
import type { IActivityFrame, IStreamingFrame } from '../wire/frame-types';
import { isObject, type JsonObject } from '../wire/json';
import { contentText, stringField } from './events';
import type { AguiThread } from './thread';
import { toolCallFrame, toolResultFrame } from './tool-frames';

/** What the reconciler needs from the run it is part of. */
export interface ISnapshotContext {
  thread: AguiThread;
  /** The node text is attributed to (the current step). */
  node: string;
  /** Emit a frame, tagged for the subagent of `subagentRunId`. */
  emit(frame: IStreamingFrame | IActivityFrame, subagentRunId: unknown): void;
  problem(found: IProblem): void;
  /** Whether a tool error was recorded for this call (consumes it). */
  toolFailed(callId: string | null, name: string): boolean;
}

export function reconcileSnapshot(
  messages: unknown,
  context: ISnapshotContext
): void {
  if (!Array.isArray(messages)) {
    context.problem(
      problem('MESSAGES_SNAPSHOT without a "messages" list: ignored')
    );
    return;
  }
  let lastUser = -1;
  messages.forEach((message, index) => {
    if (isObject(message) && message.role === 'user') {
      lastUser = index;
    }
  });
  for (const message of messages.slice(lastUser + 1)) {
    if (!isObject(message) || typeof message.id !== 'string') {
      context.problem(
        problem('MESSAGES_SNAPSHOT entry without a string "id": skipped')
      );
      continue;
    }
    switch (message.role) {
      case 'assistant':
        deliverAssistant(message, message.id, context);
        break;
      case 'tool':
        deliverToolResult(message, message.id, context);
        break;
      case 'activity':
        deliverActivity(message, message.id, context);
        break;
      // Reasoning entries can carry ids that differ from the streamed ones
      // (quirk 7); user, system and developer messages are not answers.
    }
  }
}

/** Text first, then its tool calls (contract B order). */
function deliverAssistant(
  message: JsonObject,
  id: string,
  { thread, node, emit }: ISnapshotContext
): void {
  const text = contentText(message.content);
  if (text && !thread.deliveredMessages.has(id)) {
    thread.deliveredMessages.add(id);
    emit(
      streamingFrame({ chunk: text, node, message_id: id }),
      message.subagentRunId
    );
  }
  const calls = Array.isArray(message.toolCalls) ? message.toolCalls : [];
  for (const call of calls) {
    if (!isObject(call) || typeof call.id !== 'string') {
      continue;
    }
    const fn = isObject(call.function) ? call.function : {};
    const name = stringField(fn, 'name') ?? 'tool';
    const argText = stringField(fn, 'arguments') ?? '';
    const known = thread.deliveredCalls.has(call.id);
    // A call shown with `{}` is shown again, same id, once its arguments
    // are known (quirk 3): the reducer updates that card.
    const backfill = known && thread.argsPending.has(call.id) && argText;
    if (known && !backfill) {
      continue;
    }
    thread.deliveredCalls.add(call.id);
    thread.callNames.set(call.id, name);
    if (argText) {
      thread.argsPending.delete(call.id);
    } else {
      thread.argsPending.add(call.id);
    }
    emit(toolCallFrame(name, argText, call.id), message.subagentRunId);
  }
}

function deliverToolResult(
  message: JsonObject,
  id: string,
  { thread, emit, toolFailed }: ISnapshotContext
): void {
  const callId = stringField(message, 'toolCallId');
  const delivered =
    thread.deliveredResults.has(id) ||
    (callId !== null && thread.deliveredResults.has(callId));
  if (delivered) {
    return;
  }
  thread.deliveredResults.add(id);
  if (callId !== null) {
    thread.deliveredResults.add(callId);
  }
  const name = (callId !== null && thread.callNames.get(callId)) || 'tool';
  const failed = Boolean(message.error) || toolFailed(callId, name);
  emit(
    toolResultFrame(contentText(message.content), callId, name, failed),
    message.subagentRunId
  );
}

function deliverActivity(
  message: JsonObject,
  id: string,
  { thread, emit }: ISnapshotContext
): void {
  const type = stringField(message, 'activityType');
  if (type === null || thread.activities.has(id)) {
    return;
  }
  const content = message.content ?? {};
  thread.activities.set(id, { type, content });
  emit(activityFrame(id, type, content), message.subagentRunId);
}
