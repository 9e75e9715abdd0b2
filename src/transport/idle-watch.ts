import type { IDisposable } from '@lumino/disposable';

/**
 * Calls `onIdle` once nothing was noted for `timeoutMs` (0: never). Noting
 * only records the time; the one timer checks it when due, because
 * re-arming a timer per frame cost more than handling the frame.
 */
export class IdleWatch implements IDisposable {
  constructor(
    private readonly _timeoutMs: number,
    private readonly _onIdle: () => void
  ) {}

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Something arrived: the timeout starts again. */
  note(): void {
    if (this._isDisposed || this._timeoutMs <= 0) {
      return;
    }
    this._lastNoted = Date.now();
    if (this._timer === undefined) {
      this._wait(this._timeoutMs);
    }
  }

  dispose(): void {
    this._isDisposed = true;
    clearTimeout(this._timer);
    this._timer = undefined;
  }

  private _wait(ms: number): void {
    this._timer = setTimeout(() => {
      const quiet = Date.now() - this._lastNoted;
      if (quiet < this._timeoutMs) {
        this._wait(this._timeoutMs - quiet);
        return;
      }
      this.dispose();
      this._onIdle();
    }, ms);
  }

  private _isDisposed = false;
  private _lastNoted = 0;
  private _timer: ReturnType<typeof setTimeout> | undefined;
}
