import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import type { HealthState, IHealthReport } from '../../contracts/transport';
import { errorMessage } from '../../wire/json';

/** `checking`: no answer yet. `unconfigured`: there is nothing to check. */
export type HealthDisplayState = HealthState | 'checking' | 'unconfigured';

export interface IHealthStatus {
  state: HealthDisplayState;
  /** Why it is not healthy (or the agent's greeting); empty while checking. */
  message: string;
  agentName: string | null;
  /** What the answer said of the endpoint's models (`IHealthReport`). */
  modelChoice?: boolean;
  defaultModel?: string | null;
  /** What the agent suggests asking it first (`IHealthReport`); absent: none. */
  prompts?: readonly string[];
}

export interface IHealthMonitorOptions {
  /** Delay between checks while healthy. */
  healthyIntervalMs?: number;
  /** First retry delay after a failed check; doubles up to `maxRetryMs`. */
  minRetryMs?: number;
  maxRetryMs?: number;
}

type HealthCheck = () => Promise<IHealthReport>;

/**
 * Polls an endpoint's health: every `healthyIntervalMs` while it is healthy,
 * and with exponential backoff while it needs setup or cannot be reached.
 * A new target or `refresh()` checks at once and resets the backoff; an
 * answer that arrives after a newer check started is ignored.
 */
export class HealthMonitor implements IDisposable {
  constructor(options: IHealthMonitorOptions = {}) {
    this._healthyIntervalMs = options.healthyIntervalMs ?? 60000;
    this._minRetryMs = options.minRetryMs ?? 2000;
    this._maxRetryMs = options.maxRetryMs ?? 60000;
  }

  get status(): IHealthStatus {
    return this._status;
  }

  get changed(): ISignal<this, IHealthStatus> {
    return this._changed;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** How long the monitor waits before the next check, when one is planned. */
  get nextDelayMs(): number | null {
    return this._nextDelayMs;
  }

  /**
   * What to poll: a check, or `null` with the reason there is nothing to
   * check (e.g. the endpoint's transport is not available).
   */
  setTarget(check: HealthCheck | null, problem: string | null = null): void {
    this._check = check;
    this._failures = 0;
    if (check === null) {
      this._cancel();
      this._setStatus({
        state: 'unconfigured',
        message: problem ?? '',
        agentName: null
      });
      return;
    }
    // A new endpoint: what was known about the previous one no longer applies.
    this._setStatus({ state: 'checking', message: '', agentName: null });
    if (this._started) {
      this.refresh();
    }
  }

  /** Begin polling (the first check runs at once). */
  start(): void {
    if (this._started || this._isDisposed) {
      return;
    }
    this._started = true;
    if (this._check) {
      this.refresh();
    }
  }

  /** Check now. */
  refresh(): void {
    const check = this._check;
    if (!check || !this._started || this._isDisposed) {
      return;
    }
    this._cancel();
    const generation = ++this._generation;
    let result: Promise<IHealthReport>;
    try {
      result = check();
    } catch (error) {
      result = Promise.reject(error);
    }
    void result.then(
      report => this._settle(generation, report),
      error =>
        this._settle(generation, {
          state: 'unreachable',
          message: errorMessage(error),
          agentName: null
        })
    );
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._cancel();
    Signal.clearData(this);
  }

  private _settle(generation: number, report: IHealthReport): void {
    if (this._isDisposed || generation !== this._generation) {
      return;
    }
    const { state, message, agentName, modelChoice, defaultModel, prompts } =
      report;
    this._setStatus({
      state,
      message,
      agentName,
      ...(modelChoice === undefined ? {} : { modelChoice, defaultModel }),
      ...(prompts?.length ? { prompts } : {})
    });
    let delay: number;
    if (report.state === 'healthy') {
      this._failures = 0;
      delay = this._healthyIntervalMs;
    } else {
      delay = Math.min(
        this._maxRetryMs,
        this._minRetryMs * 2 ** this._failures
      );
      this._failures += 1;
    }
    this._nextDelayMs = delay;
    this._timer = setTimeout(() => {
      this._timer = null;
      this.refresh();
    }, delay);
  }

  private _setStatus(status: IHealthStatus): void {
    const current = this._status;
    if (
      current.state === status.state &&
      current.message === status.message &&
      current.agentName === status.agentName &&
      current.modelChoice === status.modelChoice &&
      current.defaultModel === status.defaultModel &&
      samePrompts(current.prompts, status.prompts)
    ) {
      return;
    }
    this._status = status;
    this._changed.emit(status);
  }

  /** Stop the planned check and forget any check in flight. */
  private _cancel(): void {
    this._generation += 1;
    this._nextDelayMs = null;
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
  }

  private readonly _healthyIntervalMs: number;
  private readonly _minRetryMs: number;
  private readonly _maxRetryMs: number;
  private _check: HealthCheck | null = null;
  private _started = false;
  private _failures = 0;
  private _generation = 0;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _nextDelayMs: number | null = null;
  private _status: IHealthStatus = {
    state: 'unconfigured',
    message: '',
    agentName: null
  };
  private _isDisposed = false;
  private readonly _changed = new Signal<this, IHealthStatus>(this);
}

/** Whether two answers suggest the same prompts, in the same order. */
export function samePrompts(
  a: readonly string[] = [],
  b: readonly string[] = []
): boolean {
  return a.length === b.length && a.every((prompt, i) => prompt === b[i]);
}
