/**
 * The streaming frames of a tool call and of its result, shared by the
 * streamed events and the `MESSAGES_SNAPSHOT` reconciler.
 */
import { streamingFrame, wireToolCall } from '../wire/frame-builders';
import type { IStreamingFrame } from '../wire/frame-types';

/** A call with its complete argument text (parsed only now, docs/protocol.md §8.7). */
export function toolCallFrame(
  name: string,
  argText: string,
  id: string
): IStreamingFrame {
  return streamingFrame({
    tool_calls: [wireToolCall(name, parseArgs(argText), id)]
  });
}

export function toolResultFrame(
  content: string,
  callId: string | null,
  name: string,
  failed: boolean
): IStreamingFrame {
  return streamingFrame({
    tool_result: {
      content,
      id: callId,
      name,
      tool_status: failed ? 'error' : 'success',
      duration_ms: null
    }
  });
}

/**
 * Tool-call argument text as core parses it: `""` is `{}`, text that is not
 * JSON is kept as `{"_raw": text}`.
 */
export function parseArgs(text: string): unknown {
  if (!text) {
    return {};
  }
  try {
    return JSON.parse(text);
  } catch {
    return { _raw: text };
  }
}
