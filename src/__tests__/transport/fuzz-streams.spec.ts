/**
 * Mutation fuzzing of whole streams: recorded and corpus streams (chunk wire
 * and AG-UI) are mutated at the frame level and at the byte level, cut into
 * random reads, and run through the SSE reader, the AG-UI mapper and the
 * reducer. `wire-property.spec.ts` checks generated streams against an
 * oracle; this suite checks invariants that must hold for *any* input:
 *
 * - nothing throws (reader, decoder, mapper, reducer);
 * - the mapper only produces frames that decode;
 * - received content is never lost: the transcript only grows, text only
 *   appends, and after the first terminal frame nothing changes but notes;
 * - the turn always ends, with an error exactly when its outcome is `error`;
 * - item keys are unique, an extraction points at an existing tool card, a
 *   tool id names at most one call card, every text fits the size limit;
 * - the result does not depend on how the bytes were split into reads.
 *
 * Seeded and reproducible: `FUZZ_SEED` picks another seed, `FUZZ_SOAK=1`
 * runs ten times as many streams. A failure names the seed and the stream.
 */
import { problemText } from '../../wire/problem';
import * as fs from 'fs';
import * as path from 'path';

import { parseEvent } from '../../agui/events';
import { AguiThread } from '../../agui/thread';
import { AguiRunMapper } from '../../agui/to-chunk-frames';
import { readSse } from '../../transport/http/sse';
import { decodeFrame } from '../../wire/frames';
import { TurnReducer } from '../../wire/reduce';
import {
  CANONICAL_VERBS,
  MAX_DIAGNOSTICS,
  type ITurnState
} from '../../wire/types';
import {
  AGUI_DIR,
  checkMappedFrame,
  fixtureSse
} from '../support/agui-harness';
import { fakeBody, toBytes } from '../support/wire-harness';

const SEED = Number(process.env.FUZZ_SEED ?? 20261010);
const SCALE = process.env.FUZZ_SOAK ? 10 : Number(process.env.FUZZ_SCALE ?? 1);
const CHUNK_WIRE_STREAMS = Math.round(70_000 * SCALE);
const AGUI_STREAMS = Math.round(30_000 * SCALE);
const TIMEOUT_MS = 300_000 * SCALE;

const ROOT = path.resolve(__dirname, '..', '..', '..', 'fixtures');

/** mulberry32: a small, fast, seedable PRNG. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Dice {
  constructor(seed: number) {
    this.next = random(seed);
  }
  readonly next: () => number;
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
}

/** Every stream of a folder as a list of parsed JSON objects. */
function jsonStreams(folders: string[]): unknown[][] {
  const streams: unknown[][] = [];
  for (const folder of folders) {
    const dir = path.join(ROOT, folder);
    for (const name of fs.readdirSync(dir).sort()) {
      if (!name.endsWith('.jsonl')) {
        continue;
      }
      const lines = fs
        .readFileSync(path.join(dir, name), 'utf-8')
        .split('\n')
        .filter(line => line.trim());
      streams.push(lines.map(line => JSON.parse(line)));
    }
  }
  return streams;
}

/** Every AG-UI fixture (recorded `.sse` and hand-written `.jsonl`) as events. */
function aguiStreams(): unknown[][] {
  return fs
    .readdirSync(AGUI_DIR)
    .filter(name => name.endsWith('.sse') || name.endsWith('.jsonl'))
    .sort()
    .map(name =>
      fixtureSse(name)
        .split('\n')
        .filter(line => line.startsWith('data:'))
        .map(line => JSON.parse(line.slice(5)))
    );
}

const CHUNK_WIRE_POOL = jsonStreams(['chunk-wire', 'recorded']);
const AGUI_POOL = aguiStreams();

const JSON_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  '',
  'x',
  '<img src=x onerror=alert(1)>',
  '\u2028\ud83d\ude00\ud800',
  [],
  [null],
  {},
  { _raw: '{"a": ' },
  { status: 'complete' },
  { type: 'RUN_FINISHED' }
];

const STATUSES = [
  'streaming',
  'interrupt',
  'complete',
  'error',
  'cancelled',
  'heartbeat',
  'state',
  'activity',
  'subagent',
  'ignored'
];

/** jsdom has no `structuredClone`; every value here is JSON. */
function clone<T>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

function randomValue(dice: Dice, pool: unknown[][]): unknown {
  switch (dice.int(5)) {
    case 0:
      return dice.pick(JSON_VALUES);
    case 1:
      return 'y'.repeat(dice.int(3000));
    case 2:
      return dice.pick(STATUSES);
    case 3:
      return clone(dice.pick(dice.pick(pool)));
    default:
      return dice.int(1000) - 500;
  }
}

/** A random object or array inside `value` (itself included), if any. */
function randomContainer(
  dice: Dice,
  value: unknown
): Record<string, unknown> | unknown[] | null {
  if (typeof value !== 'object' || value === null) {
    return null;
  }
  const children = Object.values(value).filter(
    child => typeof child === 'object' && child !== null
  );
  if (children.length > 0 && dice.chance(0.5)) {
    return randomContainer(dice, dice.pick(children)) ?? (value as any);
  }
  return value as any;
}

/** Change one thing inside a frame: a value, a key, a type. */
function mutateFrame(dice: Dice, frame: unknown, pool: unknown[][]): unknown {
  const copy = clone(frame);
  const target = randomContainer(dice, copy);
  if (!target) {
    return randomValue(dice, pool);
  }
  const keys = Object.keys(target);
  const key = keys.length > 0 ? dice.pick(keys) : 'extra';
  switch (dice.int(4)) {
    case 0:
      (target as any)[key] = randomValue(dice, pool);
      break;
    case 1:
      if (Array.isArray(target)) {
        target.splice(Number(key), 1);
      } else {
        delete target[key];
      }
      break;
    case 2:
      (target as any)[dice.pick(['status', 'type', 'id', 'messageId', key])] =
        randomValue(dice, pool);
      break;
    default:
      return dice.chance(0.5) ? [copy] : JSON.stringify(copy);
  }
  return copy;
}

/**
 * A long recorded stream (hundreds of AG-UI events), usually cut to its
 * first event and a window of the rest: the fuzz budget goes to many
 * streams rather than to re-reading long ones.
 */
function window(dice: Dice, frames: unknown[]): unknown[] {
  const size = 20;
  if (frames.length <= size || dice.chance(0.1)) {
    return frames;
  }
  const start = 1 + dice.int(frames.length - size);
  return [frames[0], ...frames.slice(start, start + size)];
}

/** Drop, repeat, swap, import or change frames. */
function mutateFrames(
  dice: Dice,
  frames: unknown[],
  pool: unknown[][]
): unknown[] {
  const out = [...frames];
  const rounds = 1 + dice.int(4);
  for (let i = 0; i < rounds; i++) {
    const at = dice.int(out.length + 1);
    switch (dice.int(6)) {
      case 0:
        out.splice(at, 1);
        break;
      case 1:
        if (at < out.length) {
          out.splice(at, 0, out[at]);
        }
        break;
      case 2:
        if (at + 1 < out.length) {
          [out[at], out[at + 1]] = [out[at + 1], out[at]];
        }
        break;
      case 3:
        out.splice(at, 0, dice.pick(dice.pick(pool)));
        break;
      default:
        if (at < out.length) {
          out[at] = mutateFrame(dice, out[at], pool);
        }
    }
  }
  return out;
}

const SNIPPETS = [
  '\n',
  '\r',
  '\r\n',
  '\n\n',
  'data: ',
  'data:{',
  ': a comment\n',
  'event: message\n',
  'id: 7\n',
  'retry: 10\n',
  '\ufeff',
  'data: {"status": "complete"}\n\n',
  'data: {"status": "error", "error": "injected"}\n\n',
  'data: {"type": "RUN_ERROR", "message": "injected"}\n\n',
  '"}',
  '\\u00'
].map(toBytes);

const BYTES = [
  0x0a, 0x0d, 0x3a, 0x22, 0x7b, 0x7d, 0x5c, 0x20, 0x00, 0xff, 0xc3, 0xe2, 0xf0,
  0x80
];

/** Flip, insert, delete, repeat or cut bytes of an SSE body. */
function mutateBytes(dice: Dice, bytes: Uint8Array): Uint8Array {
  let out = bytes;
  const rounds = dice.int(4);
  for (let i = 0; i < rounds; i++) {
    const at = dice.int(out.length + 1);
    switch (dice.int(5)) {
      case 0: {
        if (at < out.length) {
          out = out.slice();
          out[at] = dice.chance(0.5) ? dice.pick(BYTES) : dice.int(256);
        }
        break;
      }
      case 1:
        out = concat(
          out.subarray(0, at),
          dice.pick(SNIPPETS),
          out.subarray(at)
        );
        break;
      case 2:
        out = concat(
          out.subarray(0, at),
          out.subarray(Math.min(out.length, at + 1 + dice.int(40)))
        );
        break;
      case 3: {
        const end = Math.min(out.length, at + dice.int(200));
        out = concat(
          out.subarray(0, end),
          out.subarray(at, end),
          out.subarray(end)
        );
        break;
      }
      default:
        out = out.subarray(0, at);
    }
  }
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function sseBody(dice: Dice, frames: unknown[]): Uint8Array {
  const lineEnd = dice.chance(0.2) ? '\r\n' : '\n';
  const text = frames
    .map(frame =>
      typeof frame === 'string' ? frame : (JSON.stringify(frame) ?? 'null')
    )
    .map(data => `data: ${data}${lineEnd}${lineEnd}`)
    .join('');
  return toBytes(text);
}

/**
 * Random reads: a short body sometimes one byte per read, else pieces of a
 * few bytes or a few hundred (recorded AG-UI bodies are up to 90 kB).
 */
function split(dice: Dice, bytes: Uint8Array): Uint8Array[] {
  if (bytes.length <= 1024 && dice.chance(0.02)) {
    return Array.from(bytes, byte => Uint8Array.of(byte));
  }
  const small = bytes.length <= 2048 && dice.chance(0.5);
  const reads: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    const size = 1 + dice.int(small ? 8 : 1000);
    reads.push(bytes.subarray(at, at + size));
    at += size;
  }
  return reads;
}

/** A failed invariant (plain checks: `expect` is too slow for this loop). */
function check(condition: boolean, message: string): void {
  if (!condition) {
    throw new Error(message);
  }
}

/**
 * Watches a reducer after every change: content only grows and freezes at
 * the first terminal frame.
 */
class GrowthCheck {
  constructor(private readonly _state: ITurnState) {}

  check(): void {
    const { items, outcome } = this._state;
    check(items.length >= this._items.length, 'an item was removed');
    this._items.forEach((item, index) =>
      check(items[index] === item, `item ${index} was replaced`)
    );
    const texts = items.map(item =>
      item.kind === 'text' || item.kind === 'reasoning' ? item.text : ''
    );
    this._texts.forEach((before, index) =>
      check(
        texts[index].startsWith(before),
        `item ${index} lost text it had: ${before.slice(0, 80)}`
      )
    );
    if (this._frozen !== null) {
      check(
        JSON.stringify(items) === this._frozen,
        'the transcript changed after the terminal frame'
      );
    } else if (outcome !== null) {
      this._frozen = JSON.stringify(items);
    }
    this._items = [...items];
    this._texts = texts;
  }

  private _items: ITurnState['items'] = [];
  private _texts: string[] = [];
  private _frozen: string | null = null;
}

const OUTCOMES = ['complete', 'interrupted', 'error', 'cancelled'];
const TOOL_STATUSES = ['pending', 'success', 'error', 'unknown'];

/** Invariants of a finished turn. */
function checkEnded(state: ITurnState): void {
  check(OUTCOMES.includes(state.outcome!), `outcome ${state.outcome}`);
  check(
    (state.error !== null) === (state.outcome === 'error'),
    `outcome ${state.outcome} with error ${JSON.stringify(state.error)}`
  );
  check(
    state.error === null || typeof state.error.message === 'string',
    'the error has no message'
  );
  check(
    state.diagnostics.length <= MAX_DIAGNOSTICS + 1,
    `${state.diagnostics.length} diagnostics kept`
  );
  const keys = new Set(state.items.map(item => item.key));
  check(keys.size === state.items.length, 'two items share a key');
  const callIds = new Set<string>();
  for (const item of state.items) {
    switch (item.kind) {
      case 'text':
      case 'reasoning':
        // No length bound: every character received is kept (issue 21);
        // `GrowthCheck` proves no text is ever lost.
        check(typeof item.text === 'string', `a ${item.kind} block's text`);
        break;
      case 'tool':
        if (item.callId !== null && !item.orphan) {
          check(!callIds.has(item.callId), `two cards for call ${item.callId}`);
          callIds.add(item.callId);
        }
        check(TOOL_STATUSES.includes(item.status), `status ${item.status}`);
        break;
      case 'extraction':
        check(
          item.toolKey === null || keys.has(item.toolKey),
          'an extraction points at no tool card'
        );
        break;
      case 'interrupt':
        for (const verb of [
          ...item.allowedDecisions,
          ...item.actions.flatMap(action => action.allowed)
        ]) {
          check(CANONICAL_VERBS.includes(verb), `verb ${verb}`);
        }
        break;
      default:
        throw new Error(`unknown item ${JSON.stringify(item)}`);
    }
  }
}

/** The state with item keys replaced by positions, for comparing runs. */
function comparable(state: ITurnState): string {
  const position = new Map(state.items.map((item, index) => [item.key, index]));
  return JSON.stringify(state, (key, value) =>
    (key === 'key' || key === 'toolKey') && typeof value === 'number'
      ? position.get(value)
      : value
  );
}

async function chunkWireTurn(reads: Uint8Array[]): Promise<ITurnState> {
  const reducer = new TurnReducer();
  const growth = new GrowthCheck(reducer.state);
  await readSse(
    fakeBody(reads),
    data => {
      const decoded = decodeFrame(data);
      if (decoded.ok) {
        reducer.apply(decoded.frame);
      } else {
        reducer.diagnostic(decoded.reason);
      }
      growth.check();
    },
    undefined,
    message => reducer.diagnostic(message)
  );
  reducer.endOfStream();
  growth.check();
  checkEnded(reducer.state);
  return reducer.state;
}

async function aguiTurn(reads: Uint8Array[]): Promise<ITurnState> {
  const reducer = new TurnReducer();
  const growth = new GrowthCheck(reducer.state);
  const mapper = new AguiRunMapper(new AguiThread('fuzz'), {
    frame: frame => {
      checkMappedFrame(frame);
      reducer.apply(frame);
      growth.check();
    },
    diagnostic: found => reducer.diagnostic(problemText(found))
  });
  await readSse(
    fakeBody(reads),
    data => {
      const parsed = parseEvent(data);
      if (parsed.ok) {
        mapper.apply(parsed.event);
      } else {
        reducer.diagnostic(parsed.reason);
      }
    },
    undefined,
    message => reducer.diagnostic(message)
  );
  mapper.endOfStream();
  reducer.endOfStream();
  growth.check();
  checkEnded(reducer.state);
  return reducer.state;
}

/** Every this many streams, the same bytes also run in one read: same turn? */
const SPLIT_CHECK_EVERY = 4;

/**
 * Run `count` mutated streams of `pool` through `turn` in random reads (and
 * some again in one read, to compare). Returns how many ran.
 */
async function fuzz(
  pool: unknown[][],
  count: number,
  seed: number,
  turn: (reads: Uint8Array[]) => Promise<ITurnState>
): Promise<number> {
  const dice = new Dice(seed);
  let ran = 0;
  for (let index = 0; index < count; index++) {
    const source = window(dice, dice.pick(pool));
    const frames = dice.chance(0.9) ? mutateFrames(dice, source, pool) : source;
    let bytes = sseBody(dice, frames);
    if (dice.chance(0.6)) {
      bytes = mutateBytes(dice, bytes);
    }
    const reads = split(dice, bytes);
    try {
      const state = await turn(reads);
      if (index % SPLIT_CHECK_EVERY === 0) {
        const pieces = comparable(state);
        const whole = comparable(await turn([bytes]));
        check(pieces === whole, `in reads: ${pieces}\nin one read: ${whole}`);
      }
    } catch (error) {
      const body = Buffer.from(bytes).toString('base64');
      throw new Error(
        `stream #${index} of seed ${seed} (body, base64: ${body}): ${String(error)}`
      );
    }
    ran += 1;
  }
  return ran;
}

describe('fuzzing whole streams (seed ' + SEED + ')', () => {
  beforeEach(() => {
    // The mapper warns about the protocol violations it is fed.
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  it(
    `chunk wire: ${CHUNK_WIRE_STREAMS} mutated streams through the SSE reader and the reducer`,
    async () => {
      expect(CHUNK_WIRE_POOL.length).toBeGreaterThan(40);
      const ran = await fuzz(
        CHUNK_WIRE_POOL,
        CHUNK_WIRE_STREAMS,
        SEED,
        chunkWireTurn
      );
      expect(ran).toBe(CHUNK_WIRE_STREAMS);
    },
    TIMEOUT_MS
  );

  it(
    `AG-UI: ${AGUI_STREAMS} mutated streams through the SSE reader, the mapper and the reducer`,
    async () => {
      expect(AGUI_POOL.length).toBeGreaterThan(20);
      const ran = await fuzz(AGUI_POOL, AGUI_STREAMS, SEED + 1, aguiTurn);
      expect(ran).toBe(AGUI_STREAMS);
    },
    TIMEOUT_MS
  );
});
