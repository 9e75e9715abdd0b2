/** Fakes of HTTP answers for the HTTP transports' tests. */
import { toBytes } from './wire-harness';

/** A body the test writes to; reads wait for the next write. */
export class ScriptedBody {
  push(text: string): void {
    this._chunks.push(toBytes(text));
    this._wake();
  }

  close(): void {
    this._closed = true;
    this._wake();
  }

  fail(error: Error): void {
    this._error = error;
    this._wake();
  }

  getReader() {
    return {
      read: async (): Promise<{ done: boolean; value?: Uint8Array }> => {
        while (!this._chunks.length && !this._closed && !this._error) {
          await new Promise<void>(resolve => (this._wake = resolve));
        }
        if (this._error) {
          throw this._error;
        }
        const value = this._chunks.shift();
        return value ? { done: false, value } : { done: true };
      },
      cancel: async () => {
        this.cancelled = true;
        this.close();
      }
    };
  }

  cancelled = false;
  private _chunks: Uint8Array[] = [];
  private _closed = false;
  private _error: Error | null = null;
  private _wake: () => void = () => undefined;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  422: 'Unprocessable Entity'
};

/** An HTTP answer of `status`: an event stream of `body`, or a text body. */
export function response(
  status: number,
  body: ScriptedBody | string | null,
  contentType = 'text/event-stream'
): Response {
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText: STATUS_TEXT[status] ?? 'Error',
    headers: {
      get: (key: string) => (key === 'Content-Type' ? contentType : null)
    },
    body: body instanceof ScriptedBody ? body : null,
    text: async () => (typeof body === 'string' ? body : '')
  } as unknown as Response;
}
