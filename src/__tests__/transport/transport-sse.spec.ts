import { ReadableStream } from 'stream/web';

import {
  READ_PIECE_CHARS,
  READ_SLICE_MS,
  readSse,
  type IByteReader
} from '../../transport/http/sse';
import { fakeBody, toBytes } from '../support/wire-harness';

async function collect(...reads: string[]): Promise<string[]> {
  const data: string[] = [];
  await readSse(fakeBody(reads.map(toBytes)), item => data.push(item));
  return data;
}

/** A reader whose reads stay pending until the test says otherwise. */
function stalledReader(): IByteReader & { cancelled: unknown[] } {
  const cancelled: unknown[] = [];
  return {
    cancelled,
    read: () => new Promise(() => undefined),
    cancel: async (reason?: unknown) => {
      cancelled.push(reason);
    }
  };
}

describe('readSse framing', () => {
  it('accepts data with or without the space, LF, CRLF or CR', async () => {
    expect(await collect('data: a\n\ndata:b\r\n\r\ndata: c\r\r')).toEqual([
      'a',
      'b',
      'c'
    ]);
  });

  it('ignores comments and other fields', async () => {
    expect(
      await collect(': keep-alive\n\nevent: x\nid: 3\nretry: 10\ndata: a\n\n')
    ).toEqual(['a']);
  });

  it('joins the data lines of one event with a newline', async () => {
    expect(await collect('data: a\ndata: b\n\n')).toEqual(['a\nb']);
  });

  it('carries a line break split between \\r and \\n across reads', async () => {
    // Read as two line ends, the split would end the event after "a".
    expect(await collect('data: a\r', '\ndata: b\r', '\n\r', '\n')).toEqual([
      'a\nb'
    ]);
  });

  it('delivers a last event that lacks its blank line', async () => {
    expect(await collect('data: a\n\ndata: b')).toEqual(['a', 'b']);
    expect(await collect('data: a\r\n')).toEqual(['a']);
  });

  it('decodes UTF-8 split inside a character', async () => {
    const bytes = toBytes('data: —…\n\n');
    const reads = Array.from(bytes, byte => Uint8Array.of(byte));
    const data: string[] = [];
    await readSse(fakeBody(reads), item => data.push(item));
    expect(data).toEqual(['—…']);
  });

  it('reports lines the SSE grammar does not know', async () => {
    const problems: string[] = [];
    await readSse(
      fakeBody([toBytes('bogus: 1\ndata: a\n\n')]),
      () => undefined,
      undefined,
      problem => problems.push(problem)
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^unreadable event-stream line: .*bogus/);
  });
});

describe('readSse endings', () => {
  it('rejects with the error of a failing read, keeping what came before', async () => {
    const data: string[] = [];
    let calls = 0;
    const body = {
      getReader: () => ({
        read: async () => {
          calls += 1;
          if (calls === 1) {
            return { done: false, value: toBytes('data: a\n\n') };
          }
          throw new Error('network lost');
        }
      })
    };
    await expect(readSse(body, item => data.push(item))).rejects.toThrow(
      'network lost'
    );
    expect(data).toEqual(['a']);
  });

  it('stops a pending read on abort and cancels the reader', async () => {
    const reader = stalledReader();
    const controller = new AbortController();
    const reading = readSse(
      { getReader: () => reader },
      () => undefined,
      controller.signal
    );
    controller.abort('stop pressed');
    await expect(reading).resolves.toBeUndefined();
    expect(reader.cancelled).toEqual(['stop pressed']);
  });

  it('does not read at all when already aborted', async () => {
    const reader = stalledReader();
    const read = jest.spyOn(reader, 'read');
    await readSse(
      { getReader: () => reader },
      () => undefined,
      AbortSignal.abort('gone')
    );
    expect(read).not.toHaveBeenCalled();
    expect(reader.cancelled).toEqual(['gone']);
  });

  it('delivers nothing more once onData aborts', async () => {
    const controller = new AbortController();
    const data: string[] = [];
    await readSse(
      fakeBody([toBytes('data: a\n\ndata: b\n\n'), toBytes('data: c\n\n')]),
      item => {
        data.push(item);
        controller.abort();
      },
      controller.signal
    );
    expect(data).toEqual(['a']);
  });

  it('reads and cancels a real ReadableStream', async () => {
    let cancelledWith: unknown = 'not cancelled';
    const controller = new AbortController();
    const data: string[] = [];
    const stream = new ReadableStream<Uint8Array>({
      start(source) {
        source.enqueue(toBytes('data: first\n\n'));
      },
      cancel(reason) {
        cancelledWith = reason;
      }
    });
    await readSse(
      stream,
      item => {
        data.push(item);
        setTimeout(() => controller.abort('enough'), 0);
      },
      controller.signal
    );
    expect(data).toEqual(['first']);
    expect(cancelledWith).toBe('enough');
  });

  it('reads a real ReadableStream to its end', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(source) {
        source.enqueue(toBytes('data: {"status":"complete"}'));
        source.close();
      }
    });
    const data: string[] = [];
    await readSse(stream, item => data.push(item));
    expect(data).toEqual(['{"status":"complete"}']);
  });
});

describe('readSse slices', () => {
  /**
   * Read `reads`; each event costs `costMs` on a fake clock. The steps are
   * the events and the yields to the page, in order.
   */
  async function readTimed(
    costMs: number,
    abortOnYield = false,
    reads = ['data: a\n\n', 'data: b\n\n', 'data: c\n\n']
  ) {
    let clock = 0;
    const steps: string[] = [];
    const controller = new AbortController();
    await readSse(
      fakeBody(reads.map(toBytes)),
      data => {
        steps.push(data);
        clock += costMs;
      },
      controller.signal,
      undefined,
      {
        now: () => clock,
        yieldToPage: async () => {
          steps.push('yield');
          if (abortOnYield) {
            controller.abort();
          }
        }
      }
    );
    return steps;
  }

  it('lets the page render once a slice has taken its time', async () => {
    expect(await readTimed(READ_SLICE_MS + 1)).toEqual([
      'a',
      'yield',
      'b',
      'yield',
      'c',
      'yield'
    ]);
  });

  it('reads on without yielding while events are cheap', async () => {
    expect(await readTimed(1)).toEqual(['a', 'b', 'c']);
  });

  it('reads nothing more when aborted while the page renders', async () => {
    expect(await readTimed(READ_SLICE_MS + 1, true)).toEqual(['a', 'yield']);
  });

  it('yields in a new task by default, and still reads everything', async () => {
    const many = Array.from({ length: 2000 }, (_, i) => `data: ${i}\n\n`);
    const data: string[] = [];
    let tasksRun = 0;
    const ticker = setInterval(() => (tasksRun += 1), 0);
    let clock = 0;
    try {
      await readSse(
        fakeBody(many.map(toBytes)),
        item => {
          data.push(item);
          clock += 1;
        },
        undefined,
        undefined,
        { now: () => clock }
      );
    } finally {
      clearInterval(ticker);
    }
    expect(data).toHaveLength(2000);
    expect(data[1999]).toBe('1999');
    // 2,000 ms of fake work in 8 ms slices: other tasks ran in between.
    expect(tasksRun).toBeGreaterThan(0);
  });

  describe('inside one large read', () => {
    /** `count` events of about 100 characters, all in one read. */
    function oneRead(count: number): { body: string; events: string[] } {
      const events = Array.from(
        { length: count },
        (_, i) => `${i}:${'x'.repeat(90)}`
      );
      return {
        events,
        body: events.map(event => `data: ${event}\n\n`).join('')
      };
    }

    /** `body` in one read; each event costs `costMs` on a fake clock. */
    function readOnce(body: string, costMs: number, abortOnYield = false) {
      return readTimed(costMs, abortOnYield, [body]);
    }

    it('lets the page render between pieces, and delivers every event once, in order', async () => {
      // Three pieces' worth of events, each costing a millisecond.
      const { body, events } = oneRead(Math.ceil((3 * READ_PIECE_CHARS) / 100));
      const steps = await readOnce(body, 1);
      expect(steps.filter(step => step !== 'yield')).toEqual(events);
      const yields = steps.filter(step => step === 'yield').length;
      // At a piece's end once the slice is spent; none before the first.
      expect(yields).toBeGreaterThanOrEqual(2);
      expect(steps.indexOf('yield')).toBeGreaterThan(READ_SLICE_MS);
    });

    it('does not yield inside a read while its events are cheap', async () => {
      const { body, events } = oneRead(Math.ceil((3 * READ_PIECE_CHARS) / 100));
      expect(await readOnce(body, 0)).toEqual(events);
    });

    it('keeps a character cut between two pieces whole', async () => {
      // An astral character (two UTF-16 units) across the first piece's end.
      const head = 'data: ';
      const filler = 'a'.repeat(READ_PIECE_CHARS - head.length - 1);
      const body = `${head}${filler}😀 end\n\ndata: next\n\n`;
      expect(body.indexOf('😀')).toBe(READ_PIECE_CHARS - 1);
      const steps = await readOnce(body, READ_SLICE_MS + 1);
      expect(steps.filter(step => step !== 'yield')).toEqual([
        `${filler}😀 end`,
        'next'
      ]);
    });

    it('delivers nothing more of the read when aborted while the page renders', async () => {
      const { body, events } = oneRead(Math.ceil((3 * READ_PIECE_CHARS) / 100));
      const steps = await readOnce(body, 1, true);
      expect(steps[steps.length - 1]).toBe('yield');
      const delivered = steps.slice(0, -1);
      expect(delivered).toEqual(events.slice(0, delivered.length));
      expect(delivered.length).toBeLessThan(events.length);
    });
  });
});
