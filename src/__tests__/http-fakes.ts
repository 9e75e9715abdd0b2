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
