/**
 * AG-UI streams (fixtures/agui): real ones recorded from langstage-agui and
 * hand-written ones for each adapter quirk, mapped and reduced into the turns
 * of `expected.json`, under every SSE encoding and read pattern.
 */
import * as fs from 'fs';
import * as path from 'path';

import { EventSchema } from '@ag-ui/core/schemas';

import { AguiThread } from '../../agui/thread';
import {
  AGUI_DIR,
  comparableAgui,
  fixtureSse,
  loadExpected,
  mapRun,
  runFixture,
  sseData,
  summarizeAgui
} from '../support/agui-harness';
import {
  asciiOnly,
  reduceFrames,
  SSE_ENCODINGS,
  summarize,
  toBytes
} from '../support/wire-harness';

const expected = loadExpected();
const names = fs
  .readdirSync(AGUI_DIR)
  .filter(name => name.endsWith('.sse') || name.endsWith('.jsonl'))
  .sort();

describe('fixtures/agui', () => {
  it('has an expected entry for every stream and a stream for every entry', () => {
    expect(Object.keys(expected).sort()).toEqual(names);
  });

  it.each(names)('%s maps to the expected turn', async name => {
    const turn = await runFixture(name, expected);
    expect(summarizeAgui(turn.reducer.state, expected[name])).toStrictEqual(
      comparableAgui(expected[name])
    );
  });

  describe.each(SSE_ENCODINGS)('encoded as $name', encoding => {
    /** Re-frame the stream's events in this encoding. */
    const reencode = (sse: string): string =>
      sse
        .split('\n')
        .filter(line => line.startsWith('data: '))
        .map(line => {
          const data = line.slice('data: '.length);
          const text = encoding.asciiOnly ? asciiOnly(data) : data;
          return `data: ${text}${encoding.lineEnd}${encoding.lineEnd}`;
        })
        .join('');

    it.each(names)('%s, three events per read', async name => {
      const turn = await runFixture(name, expected, undefined, sse => {
        const events = reencode(sse).split(
          `${encoding.lineEnd}${encoding.lineEnd}`
        );
        const reads: Uint8Array[] = [];
        for (let i = 0; i < events.length; i += 3) {
          const group = events
            .slice(i, i + 3)
            .join(`${encoding.lineEnd}${encoding.lineEnd}`);
          reads.push(toBytes(`${group}${encoding.lineEnd}${encoding.lineEnd}`));
        }
        return reads;
      });
      expect(summarizeAgui(turn.reducer.state, expected[name])).toStrictEqual(
        comparableAgui(expected[name])
      );
    });
  });

  // Byte-at-a-time reads are slow on the large recorded bodies: the small
  // hand-written streams cover the reader's partial-line handling.
  it.each(names.filter(name => name.endsWith('.jsonl')))(
    '%s, one byte per read with CRLF line ends',
    async name => {
      const turn = await runFixture(name, expected, undefined, sse =>
        Array.from(toBytes(sse.replace(/\n/g, '\r\n')), byte =>
          Uint8Array.of(byte)
        )
      );
      expect(summarizeAgui(turn.reducer.state, expected[name])).toStrictEqual(
        comparableAgui(expected[name])
      );
    }
  );
});

describe('recorded AG-UI streams against the chunk wire of the same scenario', () => {
  // langstage-core's own chunk wire (fixtures/recorded, same demo agent and
  // messages): the AG-UI path must give the same turn, minus the extractions
  // that only run inside Python.
  const pairs: [string, string][] = [
    ['think.sse', 'R04-think-chunk.jsonl'],
    ['tool.sse', 'R05-use-a-tool-chunk.jsonl'],
    ['ask.sse', 'R10a-ask-chunk.jsonl'],
    ['ask-pending.sse', 'R10c-resurfaced-chunk.jsonl'],
    ['ask-resume.sse', 'R10b-resume-respond-chunk.jsonl']
  ];
  const recorded = path.resolve(AGUI_DIR, '..', 'recorded');

  it.each(pairs)('%s renders like %s', async (agui, chunk) => {
    const lines = fs
      .readFileSync(path.join(recorded, chunk), 'utf-8')
      .split('\n')
      .filter(Boolean);
    const reference = reduceFrames(lines).state;
    reference.items = reference.items.filter(
      item => item.kind !== 'extraction'
    );
    const turn = await runFixture(agui, expected);
    const everything = { ...expected[agui], items: [] };
    expect(summarize(turn.reducer.state, everything)).toStrictEqual(
      summarize(reference, everything)
    );
  });
});

describe('a thread the adapter has not seen (a page reload)', () => {
  it('delivers only the new run from a whole-thread MESSAGES_SNAPSHOT', async () => {
    const fresh = new AguiThread('reloaded');
    const data = await sseData([toBytes(fixtureSse('hello-then-tool.sse'))]);
    const turn = mapRun(fresh, data);
    expect(
      summarizeAgui(turn.reducer.state, expected['hello-then-tool.sse'])
    ).toStrictEqual(comparableAgui(expected['hello-then-tool.sse']));
  });
});

describe('the streams are AG-UI 1.0 events', () => {
  // Deliberately not 1.0: 0.x THINKING_* events, a malformed STATE_DELTA and
  // an unknown event type, each there to test the adapter's tolerance.
  const notOneZero: Record<string, string[]> = {
    'Q06-thinking-0x.jsonl': [
      'THINKING_START',
      'THINKING_TEXT_MESSAGE_START',
      'THINKING_TEXT_MESSAGE_CONTENT',
      'THINKING_TEXT_MESSAGE_END',
      'THINKING_END'
    ],
    'Q08-state-delta.jsonl': ['STATE_DELTA'],
    'Q15-unknown-and-muted.jsonl': ['SOMETHING_NEW']
  };

  it.each(names)('%s', async name => {
    const data = await sseData([toBytes(fixtureSse(name))]);
    const invalid = new Set<string>();
    for (const item of data) {
      const event = JSON.parse(item);
      if (!EventSchema.safeParse(event).success) {
        invalid.add(event.type);
      }
    }
    expect([...invalid].sort()).toEqual([...(notOneZero[name] ?? [])].sort());
  });
});
