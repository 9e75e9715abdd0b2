/**
 * Read a server-sent-event body (docs/protocol.md §6.4): bytes → UTF-8 text →
 * eventsource-parser → one `onData` call per event.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { createParser } from 'eventsource-parser';
import { nextTask } from '../next-task';
import { panelStrings } from '../../contracts/translation';

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
 * The most characters one event may buffer (its unfinished line plus its
 * data so far). Chunk-wire frames are far smaller; AG-UI snapshots can be
 * large, so the limit is generous. A bigger event is dropped and reported.
 */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * How long (ms) reading may hold the main thread before it lets the page
 * render: a body that arrived all at once is otherwise read, decoded and
 * reduced in one long task, and nothing shows until it ends.
 */
export const READ_SLICE_MS = 8;

/**
 * Characters of one read fed to the parser between checks of the slice: a
 * read of a whole burst (a body sent at once) is then no longer one task.
 */
export const READ_PIECE_CHARS = 8 * 1024;

export interface IReadSseOptions {
  /** Defaults to `MAX_EVENT_CHARS`. */
  maxEventChars?: number;
  /** The clock of the read slices (ms); defaults to `performance.now`. */
  now?: () => number;
  /** Lets the page render between slices; defaults to a new task. */
  yieldToPage?: () => Promise<void>;
  /** Words the problems; English by default. */
  trans?: TranslationBundle;
}

/**
 * Deliver every event's `data` until the body ends or `signal` aborts.
 *
 * Partial lines and partial UTF-8 sequences are carried across reads. At the
 * end of the body the parser is flushed, so a last event without its blank
 * line is still delivered. On abort the reader is cancelled and nothing more
 * is delivered; the promise resolves. A failing read rejects the promise.
 * `onProblem` hears about lines the SSE grammar does not allow and about
 * events over the size limit, which are dropped; reading goes on after them.
 */
export async function readSse(
  body: IByteStream,
  onData: (data: string) => void,
  signal?: AbortSignal,
  onProblem?: (message: string) => void,
  options: IReadSseOptions = {}
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  const feed = eventFeed(onData, signal, onProblem, options);
  let onAbort = (): void => undefined;
  const aborted = new Promise<typeof ABORTED>(resolve => {
    onAbort = () => resolve(ABORTED);
  });
  signal?.addEventListener('abort', onAbort);
  const now = options.now ?? (() => performance.now());
  const yieldToPage = options.yieldToPage ?? nextTask;
  let sliceStart = now();
  try {
    while (!signal?.aborted) {
      if (now() - sliceStart > READ_SLICE_MS) {
        await yieldToPage();
        sliceStart = now();
        continue;
      }
      const result = await Promise.race([reader.read(), aborted]);
      if (result === ABORTED || signal?.aborted) {
        break;
      }
      if (result.done) {
        feed(decoder.decode());
        feed('\n\n');
        return;
      }
      if (result.value) {
        const text = decoder.decode(result.value, { stream: true });
        for (let start = 0; start < text.length; start += READ_PIECE_CHARS) {
          if (start > 0 && now() - sliceStart > READ_SLICE_MS) {
            await yieldToPage();
            sliceStart = now();
            if (signal?.aborted) {
              break;
            }
          }
          feed(text.slice(start, start + READ_PIECE_CHARS));
        }
      }
    }
    // Not awaited: a reader that never settles must not hold the caller.
    reader.cancel?.(signal?.reason).catch(() => undefined);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Where decoded text goes: eventsource-parser, which calls `onData` per
 * event. An event over the size limit is dropped and reported, and parsing
 * starts again after the line it ended in.
 */
function eventFeed(
  onData: (data: string) => void,
  signal: AbortSignal | undefined,
  onProblem: ((message: string) => void) | undefined,
  options: IReadSseOptions
): (text: string) => void {
  const maxEventChars = options.maxEventChars ?? MAX_EVENT_CHARS;
  const trans = options.trans ?? panelStrings();
  let overflowed = false;
  let skipToLineEnd = false;
  const parser = createParser({
    onEvent: event => {
      // An abort raised by `onData` itself stops the rest of this read too.
      if (!signal?.aborted) {
        onData(event.data);
      }
    },
    onError: error => {
      if (error.type === 'max-buffer-size-exceeded') {
        overflowed = true;
        onProblem?.(
          trans.__(
            "dropped an event of more than %1 characters (the panel's limit for one event)",
            maxEventChars
          )
        );
      } else {
        onProblem?.(
          trans.__('unreadable event-stream line: %1', error.message)
        );
      }
    },
    maxBufferSize: maxEventChars
  });
  return text => {
    if (skipToLineEnd) {
      // The rest of the dropped event's unfinished line: not a line of its own.
      const lineEnd = text.search(/[\r\n]/);
      if (lineEnd < 0) {
        return;
      }
      skipToLineEnd = false;
      text = text.slice(lineEnd);
    }
    parser.feed(text);
    if (overflowed) {
      // The parser dropped what it held and stopped; start again after it.
      overflowed = false;
      parser.reset();
      skipToLineEnd = !/[\r\n]$/.test(text);
    }
  };
}
