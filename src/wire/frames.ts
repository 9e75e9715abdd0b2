/**
 * Validated chunk-wire frames (docs/protocol.md §2, §2.8–2.9).
 *
 * `decodeFrame` is the only place raw JSON is looked at: it accepts the
 * chunk wire (`{"status": …}`) and LangStage's event wire (`{"type": …}`),
 * and yields one typed shape (contract B superset, every B key optional,
 * `null` = missing). Anything it cannot use becomes an `ignored` frame or a
 * `{ok: false}` result naming the problem; it never throws.
 *
 * Panel-internal additions, produced only by the AG-UI adapter (docs/protocol.md §2.7)
 * and never by a chunk-wire producer: the `state`, `activity`, `subagent`
 * and `usage` statuses, a `subagent` tag on streaming frames, and
 * `interrupt_ids` and `request` on interrupt frames. This project's server
 * adds `checkpoint_id` and `end_checkpoint_id` (docs/protocol.md §5.10).
 */
import { failure, type IFailure } from './problem';
import {
  activityFrame,
  stateFrame,
  streamingFrame,
  usageFrame,
  wireToolCall
} from './frame-builders';
import { errorMessage, isObject, type JsonObject } from './json';
import type {
  ICompleteFrame,
  IErrorFrame,
  IIgnoredFrame,
  IInterruptFrame,
  IStreamingFrame,
  IWireExtraction,
  IWireInterrupt,
  IWireToolCall,
  WireFrame
} from './frame-types';
import type { ISubagentTag, SubagentStatus } from './types';

export type DecodeResult = { ok: true; frame: WireFrame } | IFailure;

/** Event-wire frame types this decoder understands (docs/protocol.md §2.8). */
const EVENT_TYPES = new Set([
  'content',
  'reasoning',
  'tool_start',
  'tool_end',
  'extraction',
  'interrupt',
  'complete',
  'error',
  'cancelled'
]);

/**
 * Decode one frame: JSON text (SSE `data`) or an already-parsed value (comm).
 */
export function decodeFrame(input: string | unknown): DecodeResult {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (error) {
      return jsonFailure(input, error);
    }
  }
  if (!isObject(value)) {
    return failure('frame is not a JSON object (got %1)', describeType(value));
  }
  // `type` wins when it names an event-wire frame: the event wire's
  // `tool_end` carries its own `status` ("success"/"error").
  if (typeof value.type === 'string' && EVENT_TYPES.has(value.type)) {
    return { ok: true, frame: decodeEventFrame(value.type, value) };
  }
  if (typeof value.status === 'string') {
    return {
      ok: true,
      frame: withCheckpoints(decodeChunkFrame(value.status, value), value)
    };
  }
  if (typeof value.type === 'string') {
    return {
      ok: true,
      frame: ignored(`unknown event type "${value.type}"`)
    };
  }
  return failure(
    'frame has no string "status" or "type" (keys: %1)',
    Object.keys(value).join(', ') || 'none'
  );
}

function decodeChunkFrame(status: string, raw: JsonObject): WireFrame {
  switch (status) {
    case 'streaming':
      return decodeStreaming(raw);
    case 'interrupt':
      return decodeInterrupt(raw);
    case 'complete':
      return { status: 'complete', outcome: readOutcome(raw.outcome) };
    case 'error':
      return errorFrame(raw);
    case 'cancelled':
      return { status: 'cancelled', message: stringOrNull(raw.message) };
    case 'state':
      return stateFrame(raw.state);
    case 'activity':
      return decodeActivity(raw);
    case 'subagent':
      return decodeSubagent(raw);
    case 'usage':
      return usageFrame(
        numberOrNull(raw.input_tokens),
        numberOrNull(raw.output_tokens)
      );
    default:
      return ignored(`unknown status "${status}"`);
  }
}

/** `frame` with the checkpoint keys `raw` carries (docs/protocol.md §5.10). */
function withCheckpoints(frame: WireFrame, raw: JsonObject): WireFrame {
  if (typeof raw.checkpoint_id === 'string' || raw.checkpoint_id === null) {
    frame.checkpoint_id = raw.checkpoint_id;
  }
  if (typeof raw.end_checkpoint_id === 'string') {
    frame.end_checkpoint_id = raw.end_checkpoint_id;
  }
  return frame;
}

function decodeInterrupt(raw: JsonObject): IInterruptFrame {
  // Core nests the payload under `interrupt`; fall back to the frame itself
  // as core's own collector does.
  const frame: IInterruptFrame = {
    status: 'interrupt',
    interrupt: readInterrupt(isObject(raw.interrupt) ? raw.interrupt : raw)
  };
  if (Array.isArray(raw.interrupt_ids)) {
    frame.interrupt_ids = raw.interrupt_ids.filter(
      (id): id is string => typeof id === 'string'
    );
  }
  const request = isObject(raw.request) ? raw.request : null;
  if (request && typeof request.reason === 'string') {
    frame.request = {
      reason: request.reason,
      message: stringOrNull(request.message),
      response_schema: isObject(request.response_schema)
        ? request.response_schema
        : null,
      expires_at: stringOrNull(request.expires_at),
      tool_call_id: stringOrNull(request.tool_call_id)
    };
  }
  return frame;
}

function decodeActivity(raw: JsonObject): WireFrame {
  if (typeof raw.id !== 'string' || typeof raw.activity_type !== 'string') {
    return ignored('activity frame without a string "id" and "activity_type"');
  }
  const frame = activityFrame(raw.id, raw.activity_type, raw.content);
  const subagent = readSubagentTag(raw.subagent);
  if (subagent) {
    frame.subagent = subagent;
  }
  return frame;
}

const SUBAGENT_STATUSES = new Set([
  'running',
  'finished',
  'suspended',
  'error'
]);

function decodeSubagent(raw: JsonObject): WireFrame {
  const status = raw.subagent_status;
  if (typeof raw.id !== 'string' || !SUBAGENT_STATUSES.has(String(status))) {
    return ignored(
      'subagent frame without a string "id" and a known "subagent_status"'
    );
  }
  return {
    status: 'subagent',
    id: raw.id,
    name: stringOrNull(raw.name),
    description: stringOrNull(raw.description),
    parent_id: stringOrNull(raw.parent_id),
    subagent_status: status as SubagentStatus,
    message: stringOrNull(raw.message)
  };
}

/** `{id, name?}`; anything else is no tag. */
function readSubagentTag(value: unknown): ISubagentTag | null {
  if (!isObject(value) || typeof value.id !== 'string') {
    return null;
  }
  return { id: value.id, name: stringOrNull(value.name) };
}

function decodeStreaming(raw: JsonObject): WireFrame {
  const frame = streamingFrame();
  frame.node = stringOrNull(raw.node);
  frame.message_id = stringOrNull(raw.message_id);
  frame.chunk = readString(raw, 'chunk', frame.problems);
  frame.reasoning = readString(raw, 'reasoning', frame.problems);
  if ('tool_calls' in raw) {
    frame.tool_calls = readToolCalls(raw.tool_calls, frame.problems);
  }
  if (raw.tool_result !== undefined && raw.tool_result !== null) {
    frame.tool_result = {
      content: raw.tool_result,
      id: stringOrNull(raw.id),
      name: stringOrNull(raw.name),
      tool_status: stringOrNull(raw.tool_status),
      duration_ms: numberOrNull(raw.duration_ms)
    };
  }
  if ('extraction' in raw) {
    frame.extraction = readExtraction(raw.extraction, frame.problems);
  }
  if ('subagent' in raw) {
    const subagent = readSubagentTag(raw.subagent);
    if (subagent) {
      frame.subagent = subagent;
    } else {
      frame.problems.push('"subagent" is not an object with a string "id"');
    }
  }
  if (!hasPayload(frame) && frame.problems.length === 0) {
    const keys = Object.keys(raw).filter(key => key !== 'status');
    return ignored(
      `streaming frame with no known payload (keys: ${keys.join(', ') || 'none'})`
    );
  }
  return frame;
}

function decodeEventFrame(type: string, raw: JsonObject): WireFrame {
  const frame = streamingFrame();
  switch (type) {
    case 'content':
      if (typeof raw.role === 'string' && raw.role !== 'assistant') {
        return ignored(`content frame with role "${raw.role}"`);
      }
      frame.chunk = readString(raw, 'content', frame.problems);
      frame.node = stringOrNull(raw.node);
      frame.message_id = stringOrNull(raw.message_id);
      break;
    case 'reasoning':
      frame.reasoning = readString(raw, 'content', frame.problems);
      frame.node = stringOrNull(raw.node);
      break;
    case 'tool_start':
      frame.tool_calls = readToolCalls([raw], frame.problems);
      break;
    case 'tool_end':
      frame.tool_result = {
        content: raw.result ?? raw.error_message ?? '',
        id: stringOrNull(raw.id),
        name: stringOrNull(raw.name),
        tool_status: stringOrNull(raw.status),
        duration_ms: numberOrNull(raw.duration_ms)
      };
      break;
    case 'extraction':
      frame.extraction = readExtraction(raw, frame.problems);
      break;
    case 'interrupt':
      return { status: 'interrupt', interrupt: readInterrupt(raw) };
    case 'complete':
      return { status: 'complete', outcome: readOutcome(raw.outcome) };
    case 'error':
      return errorFrame(raw);
    case 'cancelled':
      return { status: 'cancelled', message: stringOrNull(raw.message) };
  }
  return frame;
}

function hasPayload(frame: IStreamingFrame): boolean {
  return (
    frame.chunk !== null ||
    frame.reasoning !== null ||
    frame.tool_calls !== null ||
    frame.tool_result !== null ||
    frame.extraction !== null
  );
}

function readString(
  raw: JsonObject,
  key: string,
  problems: string[]
): string | null {
  const value = raw[key];
  if (value === undefined || value === null) {
    return null;
  }
  if (typeof value !== 'string') {
    problems.push(`"${key}" is ${describeType(value)}, expected a string`);
    return null;
  }
  return value;
}

function readToolCalls(
  value: unknown,
  problems: string[]
): IWireToolCall[] | null {
  if (!Array.isArray(value)) {
    if (value !== null && value !== undefined) {
      problems.push(`"tool_calls" is ${describeType(value)}, expected a list`);
    }
    return null;
  }
  const calls: IWireToolCall[] = [];
  for (const element of value) {
    if (!isObject(element)) {
      problems.push(
        `a "tool_calls" element is ${describeType(element)}, expected an object`
      );
      continue;
    }
    calls.push(
      wireToolCall(
        stringOrNull(element.name),
        element.args,
        stringOrNull(element.id),
        stringOrNull(element.title)
      )
    );
  }
  return calls.length > 0 ? calls : null;
}

function readExtraction(
  value: unknown,
  problems: string[]
): IWireExtraction | null {
  if (!isObject(value)) {
    if (value !== null && value !== undefined) {
      problems.push(
        `"extraction" is ${describeType(value)}, expected an object`
      );
    }
    return null;
  }
  return {
    tool_name: stringOrNull(value.tool_name),
    extracted_type: stringOrNull(value.extracted_type),
    data: value.data
  };
}

function readInterrupt(payload: JsonObject): IWireInterrupt {
  const allowed = payload.allowed_decisions;
  return {
    action_requests: Array.isArray(payload.action_requests)
      ? payload.action_requests
      : [],
    review_configs: Array.isArray(payload.review_configs)
      ? payload.review_configs
      : [],
    allowed_decisions: Array.isArray(allowed)
      ? allowed.filter((verb): verb is string => typeof verb === 'string')
      : null
  };
}

function readOutcome(value: unknown): ICompleteFrame['outcome'] {
  return value === 'complete' || value === 'interrupted' ? value : null;
}

function errorFrame(raw: JsonObject): IErrorFrame {
  return {
    status: 'error',
    error: errorText(raw.error),
    traceback: stringOrNull(raw.traceback)
  };
}

/** Core's own text when a RUN_ERROR carries no message is "unknown error". */
function errorText(value: unknown): string {
  if (value === undefined || value === null || value === '') {
    return 'unknown error';
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function ignored(reason: string): IIgnoredFrame {
  return { status: 'ignored', reason };
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function describeType(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

const EXCERPT_LENGTH = 80;

function jsonFailure(text: string, error: unknown): IFailure {
  const message = errorMessage(error);
  const excerpt =
    text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH)}…` : text;
  const position = /at position (\d+)/.exec(message);
  if (position) {
    return failure('invalid JSON at position %1: %2', position[1], excerpt);
  }
  if (/end of JSON input/i.test(message)) {
    return failure(
      'invalid JSON at position %1 (cut short): %2',
      text.length,
      excerpt
    );
  }
  // Engines that give no offset: keep their wording, minus the echoed text.
  const cause = message.replace(/, ".*" is not valid JSON$/s, '');
  return failure('invalid JSON (%1): %2', cause, excerpt);
}
