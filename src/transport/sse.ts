/**
 * Read a server-sent-event body (chunk-wire §7.2): bytes → UTF-8 text →
 * eventsource-parser → one `onData` call per event.
 */
import { createParser } from 'eventsource-parser';

/** What `Response.body` offers; fakes in tests need only this much. */
export interface IByteStream {
  getReader(): IByteReader;
}

export interface IByteReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel?(reason?: unknown): Promise<void>;
}

const ABORTED = Symbol('aborted');

/**
 * Deliver every event's `data` until the body ends or `signal` aborts.
 *
 * Partial lines and partial UTF-8 sequences are carried across reads. At the
 * end of the body the parser is flushed, so a last event without its blank
 * line is still delivered. On abort the reader is cancelled and nothing more
 * is delivered; the promise resolves. A failing read rejects the promise.
 * `onProblem` hears about lines the SSE grammar does not allow.
 */
export async function readSse(
  body: IByteStream,
  onData: (data: string) => void,
  signal?: AbortSignal,
  onProblem?: (message: string) => void
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  const parser = createParser({
    onEvent: event => {
      // An abort raised by `onData` itself stops the rest of this read too.
      if (!signal?.aborted) {
        onData(event.data);
      }
    },
    onError: error =>
      onProblem?.(`unreadable event-stream line: ${error.message}`)
  });
  let onAbort = (): void => undefined;
  const aborted = new Promise<typeof ABORTED>(resolve => {
    onAbort = () => resolve(ABORTED);
  });
  signal?.addEventListener('abort', onAbort);
  try {
    while (!signal?.aborted) {
      const result = await Promise.race([reader.read(), aborted]);
      if (result === ABORTED || signal?.aborted) {
        break;
      }
      if (result.done) {
        parser.feed(decoder.decode());
        parser.feed('\n\n');
        return;
      }
      if (result.value) {
        parser.feed(decoder.decode(result.value, { stream: true }));
      }
    }
    // Not awaited: a reader that never settles must not hold the caller.
    reader.cancel?.(signal?.reason).catch(() => undefined);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
