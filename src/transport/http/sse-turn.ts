/**
 * One POST answered with server-sent events: the turn the chunk-wire and the
 * AG-UI HTTP transports share. It sends the request, checks the status and
 * the content type, reads the events (letting the page render between read
 * slices), fails a stream that goes quiet, and is over once: at the end of
 * the body, on a failure, on `abort()`, or at a deadline (`abortAfter`).
 * Each transport keeps what differs: the body, what an event means, and
 * how Stop works.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { errorMessage } from '../../wire/json';
import type { TurnRefusal } from '../../wire/turn';
import type { IHttpEndpoint } from '../endpoint';
import { describeHttpFailure } from './http-answer';
import { IdleWatch } from '../idle-watch';
import { readSse } from './sse';

/** How to reach the endpoint (a transport's options have it). */
export type SseEndpoint = Pick<
  IHttpEndpoint,
  'fetch' | 'connectTimeoutMs' | 'idleTimeoutMs'
>;

/** The turn's request and what differs between the transports. */
export interface ISseTurnOptions {
  url: string;
  /** Sent as JSON. */
  body: unknown;
  trans: TranslationBundle;
  /** One event's `data`. */
  onData: (data: string) => void;
  /** A line or an event the reader could not use; reading goes on. */
  onProblem: (message: string) => void;
  /** Why a stream quiet for `seconds` failed. */
  idleFailure: (seconds: number) => string;
  /** Why a 2xx answer of `contentType` (maybe '') that is no event stream failed. */
  notAStream: (contentType: string, body: string) => string;
  /** Why the producer refused the request, when the model acts on it. */
  refusalOf?: (status: number, body: string) => TurnRefusal | undefined;
}

/** How the request ended. */
export interface ISseTurnEnd {
  /** Why the transport failed (names the URL and the cause), if it did. */
  failure?: string;
  refusal?: TurnRefusal;
}

export class SseTurn {
  constructor(
    private readonly _endpoint: SseEndpoint,
    private readonly _options: ISseTurnOptions
  ) {
    this.ended = this._run();
  }

  /** Settles once the request is over; never rejects. */
  readonly ended: Promise<ISseTurnEnd>;

  /** By `abort()`, a deadline or a timeout. */
  get aborted(): boolean {
    return this._controller.signal.aborted;
  }

  /** Stop reading now; no terminal frame comes after it. */
  abort(): void {
    this._controller.abort();
  }

  /** Read on for `ms` at most (the cancel grace, the AG-UI drain). */
  abortAfter(ms: number): void {
    clearTimeout(this._deadline);
    this._deadline = setTimeout(() => this.abort(), ms);
  }

  /** A quiet stream is no longer a failure (the run is over). */
  stopIdleWatch(): void {
    this._idle?.dispose();
  }

  private async _run(): Promise<ISseTurnEnd> {
    const { url, trans } = this._options;
    const { fetch, connectTimeoutMs } = this._endpoint;
    const end: ISseTurnEnd = {};
    const connectTimer = setTimeout(() => {
      end.failure = trans.__(
        'no answer from %1 within %2 s',
        url,
        connectTimeoutMs / 1000
      );
      this.abort();
    }, connectTimeoutMs);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'text/event-stream'
        },
        body: JSON.stringify(this._options.body),
        signal: this._controller.signal
      });
      clearTimeout(connectTimer);
      end.failure = await this._read(response, end);
    } catch (error) {
      if (!this.aborted) {
        end.failure = trans.__('cannot reach %1: %2', url, errorMessage(error));
      }
    } finally {
      clearTimeout(connectTimer);
      this._idle?.dispose();
      clearTimeout(this._deadline);
    }
    end.failure ??= this._idleFailure;
    return end;
  }

  /** Read the answer; returns why it failed, if it did. */
  private async _read(
    response: Response,
    end: ISseTurnEnd
  ): Promise<string | undefined> {
    const { url, trans, onData } = this._options;
    const { idleTimeoutMs } = this._endpoint;
    if (!response.ok) {
      const body = await response.text();
      end.refusal = this._options.refusalOf?.(response.status, body);
      return describeHttpFailure(url, response, body, trans);
    }
    const type = response.headers.get('Content-Type') ?? '';
    if (!type.includes('text/event-stream')) {
      return this._options.notAStream(type, await response.text());
    }
    if (!response.body) {
      return trans.__('%1 answered with an empty body', url);
    }
    const idle = new IdleWatch(idleTimeoutMs, () => {
      this._idleFailure = this._options.idleFailure(idleTimeoutMs / 1000);
      this.abort();
    });
    this._idle = idle;
    idle.note();
    try {
      await readSse(
        response.body,
        data => {
          idle.note();
          onData(data);
        },
        this._controller.signal,
        this._options.onProblem,
        { trans }
      );
    } catch (error) {
      if (!this.aborted) {
        return trans.__('connection to %1 lost: %2', url, errorMessage(error));
      }
    }
    return undefined;
  }

  private readonly _controller = new AbortController();
  private _idle: IdleWatch | undefined;
  private _idleFailure: string | undefined;
  private _deadline: ReturnType<typeof setTimeout> | undefined;
}
