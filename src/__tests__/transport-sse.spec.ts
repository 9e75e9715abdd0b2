import { ReadableStream } from 'stream/web';

import { readSse, type IByteReader } from '../transport/sse';
import { fakeBody, toBytes } from './wire-harness';

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
