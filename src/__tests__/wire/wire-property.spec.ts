/**
 * Property tests over generated streams: valid and mutated frames, both
 * wires, unknown keys, interleaved tool ids, truncated streams.
 *
 * Each generated frame carries what it must do to the turn (its effects), so
 * the oracle below never consults the decoder or the reducer.
 */
import fc from 'fast-check';

import { readSse } from '../../transport/http/sse';
import { decodeFrame } from '../../wire/frames';
import { TurnReducer } from '../../wire/reduce';
import { STREAM_ENDED_UNEXPECTEDLY, type Outcome } from '../../wire/types';
import { fakeBody, toBytes } from '../support/wire-harness';

const SEED = 20240601;

type Effect =
  | { kind: 'text'; delta: string }
  | { kind: 'result' }
  | { kind: 'interrupt' }
  | { kind: 'terminal'; outcome: 'error' | 'cancelled'; error: string | null }
  | { kind: 'complete'; interrupted: boolean };

/** A frame before tool results get their unique text. */
interface IFrameSpec {
  /** Builds the frame; `result` is the unique text of its tool result. */
  frame: (result: string) => Record<string, unknown>;
  effects: Effect[];
  /** Send as JSON text (SSE) rather than a parsed object (comm). */
  asText: boolean;
  /** A proper prefix of the JSON text: never valid, so no effect. */
  cutAt: number | null;
}

const text = fc.string({ unit: 'binary', maxLength: 6 });
const node = fc.constantFrom('agent', 'tools', null, undefined);
const messageId = fc.constantFrom('m1', 'm2', null, undefined);
const toolId = fc.constantFrom('c1', 'c2', 'c3', null, undefined);
const toolStatus = fc.constantFrom('success', 'error', 'partial', undefined);
const unknownKeys = fc.dictionary(
  fc.constantFrom('lang', 'usage', 'seq', 'extra', 'todo_list'),
  fc.jsonValue({ maxDepth: 1 }),
  { maxKeys: 2 }
);

/** Drop undefined values, so "missing" really is missing on the wire. */
function defined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== undefined)
  );
}

type Body = Pick<IFrameSpec, 'frame' | 'effects'>;

const chunkFrame = fc
  .record({ delta: text, node, id: messageId, event: fc.boolean() })
  .map(({ delta, node, id, event }): Body => ({
    frame: () =>
      event
        ? defined({
            type: 'content',
            content: delta,
            role: 'assistant',
            node,
            message_id: id
          })
        : defined({ status: 'streaming', chunk: delta, node, message_id: id }),
    effects: [{ kind: 'text', delta }]
  }));

const reasoningFrame = fc
  .record({ delta: text, node, event: fc.boolean() })
  .map(({ delta, node, event }): Body => ({
    frame: () =>
      event
        ? defined({ type: 'reasoning', content: delta, node })
        : defined({ status: 'streaming', reasoning: delta, node }),
    effects: []
  }));

const toolCallFrame = fc
  .record({
    calls: fc.array(
      fc.record({ name: fc.constantFrom('f', 'g', undefined), id: toolId }),
      { minLength: 1, maxLength: 3 }
    ),
    event: fc.boolean()
  })
  .map(({ calls, event }): Body => ({
    frame: () =>
      event
        ? defined({ type: 'tool_start', ...calls[0], args: { q: 1 } })
        : {
            status: 'streaming',
            tool_calls: calls.map(call => defined({ ...call, args: { q: 1 } }))
          },
    effects: []
  }));

const toolResultFrame = fc
  .record({ id: toolId, status: toolStatus, event: fc.boolean() })
  .map(({ id, status, event }): Body => ({
    frame: result =>
      event
        ? defined({ type: 'tool_end', id, result, status })
        : defined({
            status: 'streaming',
            tool_result: result,
            id,
            tool_status: status
          }),
    effects: [{ kind: 'result' }]
  }));

/** Several payload keys in one chunk-wire frame, processed in order. */
const comboFrame = fc
  .record({ delta: text, id: toolId })
  .map(({ delta, id }): Body => ({
    frame: result =>
      defined({
        status: 'streaming',
        chunk: delta,
        reasoning: 'r',
        tool_result: result,
        id,
        extraction: { tool_name: 'f', extracted_type: 't', data: 1 }
      }),
    effects: [{ kind: 'text', delta }, { kind: 'result' }]
  }));

const extractionFrame = fc.boolean().map((event): Body => ({
  frame: () =>
    event
      ? { type: 'extraction', tool_name: 'f', extracted_type: 't', data: [1] }
      : {
          status: 'streaming',
          extraction: { tool_name: 'f', extracted_type: 't', data: [1] }
        },
  effects: []
}));

const interruptFrame = fc
  .record({
    requests: fc.array(
      fc.oneof(fc.string(), fc.record({ name: fc.string() })),
      {
        maxLength: 2
      }
    ),
    event: fc.boolean()
  })
  .map(({ requests, event }): Body => {
    const payload = {
      action_requests: requests,
      review_configs: [],
      allowed_decisions: ['approve']
    };
    return {
      frame: () =>
        event
          ? { type: 'interrupt', ...payload }
          : { status: 'interrupt', interrupt: payload },
      effects: [{ kind: 'interrupt' }]
    };
  });

const completeFrame = fc
  .record({
    outcome: fc.constantFrom('complete', 'interrupted', 'paused', undefined),
    event: fc.boolean()
  })
  .map(({ outcome, event }): Body => ({
    frame: () =>
      defined(
        event ? { type: 'complete', outcome } : { status: 'complete', outcome }
      ),
    effects: [{ kind: 'complete', interrupted: outcome === 'interrupted' }]
  }));

const errorFrame = fc
  .record({
    error: fc.option(fc.string(), { nil: undefined }),
    event: fc.boolean()
  })
  .map(({ error, event }): Body => ({
    frame: () =>
      defined(event ? { type: 'error', error } : { status: 'error', error }),
    effects: [
      { kind: 'terminal', outcome: 'error', error: error || 'unknown error' }
    ]
  }));

const cancelledFrame = fc.constant<Body>({
  frame: () => ({
    status: 'cancelled',
    message: 'Execution cancelled by user'
  }),
  effects: [{ kind: 'terminal', outcome: 'cancelled', error: null }]
});

/** Well-formed but useless, or readable but malformed: no effect. */
const inertFrame = fc
  .constantFrom<Record<string, unknown>>(
    { status: 'heartbeat' },
    { status: 'streaming' },
    { status: 'streaming', todo_list: [{ content: 'x' }] },
    { status: 'streaming', chunk: 5, reasoning: [] },
    { status: 'streaming', tool_calls: 'f', extraction: 'x' },
    { type: 'session_init', session_id: 's' },
    { type: 'content', content: 'not ours', role: 'user' },
    { chunk: 'no status' },
    { status: 7 }
  )
  .map((frame): Body => ({ frame: () => frame, effects: [] }));

const frameSpec: fc.Arbitrary<IFrameSpec> = fc
  .record({
    body: fc.oneof(
      { weight: 6, arbitrary: chunkFrame },
      { weight: 2, arbitrary: reasoningFrame },
      { weight: 3, arbitrary: toolCallFrame },
      { weight: 3, arbitrary: toolResultFrame },
      { weight: 1, arbitrary: comboFrame },
      { weight: 1, arbitrary: extractionFrame },
      { weight: 1, arbitrary: interruptFrame },
      { weight: 1, arbitrary: completeFrame },
      { weight: 1, arbitrary: errorFrame },
      { weight: 1, arbitrary: cancelledFrame },
      { weight: 2, arbitrary: inertFrame }
    ),
    extra: unknownKeys,
    asText: fc.boolean(),
    cut: fc.option(fc.nat(), { freq: 8 })
  })
  .map(({ body, extra, asText, cut }) => ({
    frame: (result: string) => ({ ...body.frame(result), ...extra }),
    effects: cut === null ? body.effects : [],
    asText: asText || cut !== null,
    cutAt: cut
  }));

/** Non-objects and broken text; never an effect. */
const junk = fc
  .constantFrom<unknown>(
    'null',
    '[1, 2]',
    '"text"',
    '42',
    '',
    'data: x',
    7,
    null,
    []
  )
  .map(input => ({ input, effects: [] as Effect[] }));

const stream = fc.array(
  fc.oneof(
    { weight: 12, arbitrary: frameSpec },
    { weight: 1, arbitrary: junk }
  ),
  { maxLength: 30 }
);

interface IBuiltFrame {
  input: unknown;
  effects: Effect[];
  result: string;
}

function build(
  specs: (IFrameSpec | { input: unknown; effects: Effect[] })[]
): IBuiltFrame[] {
  return specs.map((spec, index) => {
    const result = `result-${index}`;
    if ('input' in spec) {
      return { input: spec.input, effects: spec.effects, result };
    }
    const frame = spec.frame(result);
    if (!spec.asText) {
      return { input: frame, effects: spec.effects, result };
    }
    const json = JSON.stringify(frame);
    const input =
      spec.cutAt === null ? json : json.slice(0, spec.cutAt % json.length);
    return { input, effects: spec.effects, result };
  });
}

interface IOracle {
  text: string;
  results: string[];
  outcome: Outcome;
  error: string | null;
}

/** docs/protocol.md §4.1–4.2 from the frames' declared effects alone. */
function oracle(frames: IBuiltFrame[]): IOracle {
  let sawInterrupt = false;
  const expected: IOracle = {
    text: '',
    results: [],
    outcome: 'error',
    error: STREAM_ENDED_UNEXPECTEDLY
  };
  for (const frame of frames) {
    for (const effect of frame.effects) {
      switch (effect.kind) {
        case 'text':
          expected.text += effect.delta;
          break;
        case 'result':
          expected.results.push(frame.result);
          break;
        case 'interrupt':
          sawInterrupt = true;
          break;
        case 'complete':
          return {
            ...expected,
            outcome:
              sawInterrupt || effect.interrupted ? 'interrupted' : 'complete',
            error: null
          };
        case 'terminal':
          return { ...expected, outcome: effect.outcome, error: effect.error };
      }
    }
  }
  return expected;
}

describe('the reducer over generated streams', () => {
  it('never throws and keeps text, tool results and outcome (docs/protocol.md §4)', () => {
    fc.assert(
      fc.property(stream, specs => {
        const frames = build(specs);
        const reducer = new TurnReducer();
        for (const frame of frames) {
          const decoded = decodeFrame(frame.input);
          if (decoded.ok) {
            reducer.apply(decoded.frame);
          } else {
            reducer.diagnostic(decoded.reason);
          }
        }
        reducer.endOfStream();
        const { state } = reducer;
        const expected = oracle(frames);

        const texts = state.items.flatMap(item =>
          item.kind === 'text' ? [item.text] : []
        );
        expect(texts.join('')).toBe(expected.text);

        const attached = state.items.flatMap(item =>
          item.kind === 'tool' && item.status !== 'pending' ? [item.result] : []
        );
        expect([...attached].sort()).toEqual([...expected.results].sort());

        expect(state.outcome).toBe(expected.outcome);
        expect(state.error?.message ?? null).toBe(expected.error);

        const keys = state.items.map(item => item.key);
        expect(new Set(keys).size).toBe(keys.length);
      }),
      { seed: SEED, numRuns: 10_000 }
    );
  });
});

describe('the SSE reader over generated bodies', () => {
  it('delivers the same events however the bytes are split', async () => {
    const lines = fc.array(fc.string({ unit: 'grapheme', maxLength: 20 }), {
      maxLength: 8
    });
    await fc.assert(
      fc.asyncProperty(
        lines,
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (payloads, lineEnd, cuts) => {
          // One JSON string per event, as the server writes frames.
          const events = payloads.map(p => JSON.stringify(p));
          const bytes = toBytes(
            events.map(e => `data: ${e}${lineEnd}${lineEnd}`).join('')
          );
          const bounds = [
            ...new Set(cuts.map(c => c % (bytes.length + 1)))
          ].sort((a, b) => a - b);
          const reads = [0, ...bounds]
            .map((start, i) =>
              bytes.subarray(start, [...bounds, bytes.length][i])
            )
            .filter(read => read.length > 0);
          const data: string[] = [];
          await readSse(fakeBody(reads), item => data.push(item));
          expect(data).toEqual(events);
        }
      ),
      { seed: SEED, numRuns: 1_000 }
    );
  });
});
