/**
 * Test harness for the AG-UI adapter: load recorded (`.sse`) and hand-written
 * (`.jsonl`, one event per line) streams from fixtures/agui, run them through
 * the SSE reader, the run mapper and the reducer, and compare the turn with
 * `fixtures/agui/expected.json` (the chunk-wire corpus format, plus
 * `diagnostics` and `after`).
 */
import { problemText } from '../../wire/problem';
import * as fs from 'fs';
import * as path from 'path';
import { isDeepStrictEqual } from 'util';

import { parseEvent, type IAguiEvent } from '../../agui/events';
import { AguiThread } from '../../agui/thread';
import { AguiRunMapper } from '../../agui/to-chunk-frames';
import { readSse } from '../../transport/http/sse';
import { decodeFrame } from '../../wire/frames';
import type { WireFrame } from '../../wire/frame-types';
import type { JsonObject } from '../../wire/json';
import type { ITurnSink } from '../../wire/turn';
import { TurnReducer } from '../../wire/reduce';
import type { ITurnState } from '../../wire/types';
import {
  comparableExpected,
  fakeBody,
  summarize,
  toBytes,
  type IExpectedTurn
} from './wire-harness';

export const AGUI_DIR = path.resolve(
  __dirname,
  '..',
  '..',
  '..',
  'fixtures',
  'agui'
);

export interface IAguiExpected extends IExpectedTurn {
  /** Run on the same thread right after this fixture (multi-turn threads). */
  after?: string;
  /** The diagnostics the turn must carry, exactly (default: none). */
  diagnostics?: string[];
  /** The turn's final `agentState`, when the stream has state events. */
  state?: unknown;
  /** `[id, activityType, content]` of each activity, in order. */
  activities?: [string, string, unknown][];
  /** `[id, name, status, message]` of each subagent run, in order. */
  subagents?: [string, string | null, string, string | null][];
  /** The subagent name (or null) of each item, in order. */
  item_subagents?: (string | null)[];
  notes?: string;
}

export function loadExpected(): Record<string, IAguiExpected> {
  return JSON.parse(
    fs.readFileSync(path.join(AGUI_DIR, 'expected.json'), 'utf-8')
  );
}

/** The fixture as SSE text: `.sse` as recorded, `.jsonl` one event per line. */
export function fixtureSse(name: string): string {
  const text = fs.readFileSync(path.join(AGUI_DIR, name), 'utf-8');
  if (name.endsWith('.sse')) {
    return text;
  }
  return text
    .split('\n')
    .filter(line => line.trim())
    .map(line => `data: ${line}\n\n`)
    .join('');
}

/** The `data` of every SSE event of `sse`, read as the transport reads it. */
export async function sseData(reads: Uint8Array[]): Promise<string[]> {
  const data: string[] = [];
  await readSse(fakeBody(reads), item => data.push(item));
  return data;
}

export interface IMappedTurn {
  reducer: TurnReducer;
  /** The frames the mapper produced. */
  frames: WireFrame[];
  diagnostics: string[];
  /** The diagnostics the mapper asked the transport to log as well. */
  warnings: string[];
}

/** `frame` as a chunk-wire producer would send it (JSON). */
export function encodeFrame(frame: WireFrame): Record<string, unknown> {
  if (frame.status !== 'streaming') {
    return { ...frame };
  }
  const { tool_result, problems, ...rest } = frame;
  const json: Record<string, unknown> = { status: 'streaming' };
  for (const [key, value] of Object.entries(rest)) {
    if (value !== null && key !== 'status') {
      json[key] = value;
    }
  }
  if (tool_result) {
    json.tool_result = tool_result.content;
    json.id = tool_result.id;
    json.name = tool_result.name;
    json.tool_status = tool_result.tool_status;
    json.duration_ms = tool_result.duration_ms;
  }
  if (problems.length > 0) {
    json.problems = problems;
  }
  return json;
}

/**
 * Throws unless `frame` is exactly what `decodeFrame` makes of it as JSON:
 * the mapper's typed frames skip the decoder, so they must be what it
 * would have produced.
 */
export function checkMappedFrame(frame: WireFrame): void {
  const decoded = decodeFrame(encodeFrame(frame));
  if (!decoded.ok) {
    throw new Error(
      `the mapper produced an undecodable frame: ${decoded.reason}`
    );
  }
  if (!isDeepStrictEqual(decoded.frame, frame)) {
    throw new Error(
      `the mapper produced ${JSON.stringify(frame)}, which decodes as ${JSON.stringify(decoded.frame)}`
    );
  }
}

/**
 * Map events of one run onto a thread and reduce them; the end of the list is
 * the end of the stream.
 */
export function mapRun(
  thread: AguiThread,
  events: (IAguiEvent | string)[]
): IMappedTurn {
  const reducer = new TurnReducer();
  const frames: WireFrame[] = [];
  const diagnostics: string[] = [];
  const warnings: string[] = [];
  const mapper = new AguiRunMapper(thread, {
    frame: frame => {
      frames.push(frame);
      checkMappedFrame(frame);
      reducer.apply(frame);
    },
    diagnostic: found => {
      const message = problemText(found);
      diagnostics.push(message);
      reducer.diagnostic(message);
    },
    warning: found => warnings.push(problemText(found))
  });
  for (const input of events) {
    const parsed =
      typeof input === 'string'
        ? parseEvent(input)
        : { ok: true as const, event: input };
    if (parsed.ok) {
      mapper.apply(parsed.event);
    } else {
      diagnostics.push(parsed.reason);
      reducer.diagnostic(parsed.reason);
    }
  }
  mapper.endOfStream();
  reducer.endOfStream();
  return { reducer, frames, diagnostics, warnings };
}

/** Run a fixture file (after its `after` chain) on a thread. */
export async function runFixture(
  name: string,
  expected: Record<string, IAguiExpected>,
  thread: AguiThread = new AguiThread(name),
  reads?: (sse: string) => Uint8Array[]
): Promise<IMappedTurn> {
  const before = expected[name]?.after;
  if (before) {
    await runFixture(before, expected, thread, reads);
  }
  const sse = fixtureSse(name);
  const data = await sseData(reads ? reads(sse) : [toBytes(sse)]);
  return mapRun(thread, data);
}

/** The turn in `expected.json` form, AG-UI keys included when expected. */
export function summarizeAgui(
  state: ITurnState,
  expected: IAguiExpected
): Record<string, unknown> {
  const summary = summarize(state, expected);
  summary.diagnostics = state.diagnostics;
  if ('state' in expected) {
    summary.state = state.agentState;
  }
  if (expected.activities) {
    summary.activities = (state.activities ?? []).map(activity => [
      activity.id,
      activity.activityType,
      activity.content
    ]);
  }
  if (expected.subagents) {
    summary.subagents = (state.subagents ?? []).map(run => [
      run.id,
      run.name,
      run.status,
      run.message
    ]);
  }
  if (expected.item_subagents) {
    summary.item_subagents = state.items.map(item =>
      'subagent' in item && item.subagent ? item.subagent.name : null
    );
  }
  return summary;
}

/** The expected entry in comparable form (chain and notes dropped). */
export function comparableAgui(
  expected: IAguiExpected
): Record<string, unknown> {
  const comparable = comparableExpected(expected);
  delete comparable.after;
  comparable.diagnostics = expected.diagnostics ?? [];
  return comparable;
}

/**
 * A turn sink that reduces what it gets and keeps what the transport asks
 * to remember, as the chat model does: hand `memory` back on the next request.
 */
export function reducingSink() {
  const reducer = new TurnReducer();
  const ended: (string | undefined)[] = [];
  const result = {
    reducer,
    ended,
    memory: undefined as JsonObject | undefined,
    sink: {
      frame: (frame: WireFrame) => reducer.apply(frame),
      diagnostic: message => reducer.diagnostic(message),
      remember: memory => {
        result.memory = memory;
      },
      end: reason => {
        ended.push(reason);
        reducer.endOfStream(reason);
      }
    } as ITurnSink
  };
  return result;
}
