/**
 * Typed builders of the frames `decodeFrame` yields. The decoder builds its
 * frames with them, and the AG-UI mapper, which makes frames rather than
 * reading them, uses the same ones: its frames are typed (a misspelt key does
 * not compile) and equal to what decoding them as JSON would give.
 */
import type {
  IActivityFrame,
  IStateFrame,
  IStreamingFrame,
  IUsageFrame,
  IWireToolCall
} from './frame-types';

/** The payload keys of a streaming frame (the others start empty). */
export type StreamingPayload = Partial<
  Pick<
    IStreamingFrame,
    | 'chunk'
    | 'node'
    | 'message_id'
    | 'reasoning'
    | 'tool_calls'
    | 'tool_result'
    | 'extraction'
  >
>;

export function streamingFrame(
  payload: StreamingPayload = {}
): IStreamingFrame {
  return {
    status: 'streaming',
    chunk: null,
    node: null,
    message_id: null,
    reasoning: null,
    tool_calls: null,
    tool_result: null,
    extraction: null,
    problems: [],
    ...payload
  };
}

/** A tool call; missing arguments are `{}` (what core sends for none). */
export function wireToolCall(
  name: string | null,
  args: unknown,
  id: string | null,
  title: string | null = null
): IWireToolCall {
  const call: IWireToolCall = {
    name,
    args: args === undefined || args === null ? {} : args,
    id
  };
  if (title) {
    call.title = title;
  }
  return call;
}

export function stateFrame(state: unknown): IStateFrame {
  return { status: 'state', state: state ?? null };
}

export function activityFrame(
  id: string,
  activityType: string,
  content: unknown
): IActivityFrame {
  return {
    status: 'activity',
    id,
    activity_type: activityType,
    content: content ?? null
  };
}

export function usageFrame(
  inputTokens: number | null,
  outputTokens: number | null
): IUsageFrame {
  return {
    status: 'usage',
    input_tokens: inputTokens,
    output_tokens: outputTokens
  };
}
