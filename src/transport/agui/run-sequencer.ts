/**
 * The order of one thread's broadcast events (docs/protocol.md §9). Each event
 * carries a per-run `seq` that restarts at 1 on `RUN_STARTED`; this is how a
 * replay after a reconnect, or a join from another tab, is applied once and
 * in order. Pure: events go in, the steps to take come out, in order; what a
 * step does is the run router's business.
 */
import { stringField, type IAguiEvent } from '../../agui/events';

/** Out-of-order events kept while waiting for a missing `seq`. */
export const MAX_REORDER = 64;

export type SequencerStep =
  /** A run begins (its `RUN_STARTED` follows as an `event` step). */
  | { kind: 'run'; runId: string | null }
  /** The next event of the run that began last. */
  | { kind: 'event'; event: IAguiEvent }
  /** Events `from`–`to` of `runId` never arrived: going on without them. */
  | { kind: 'gap'; runId: string | null; from: number; to: number };

/** The events that end a run. */
export function isTerminalEvent(event: IAguiEvent): boolean {
  return event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR';
}

interface ISequencedRun {
  runId: string | null;
  /** The last `seq` applied. */
  lastSeq: number;
  /** Events that came before the `seq` they follow. */
  pending: Map<number, IAguiEvent>;
  /** Its terminal event was applied. */
  ended: boolean;
}

export class RunSequencer {
  /** Whether the server numbers its events (broadcast), from the first `seq`. */
  get broadcast(): boolean {
    return this._broadcast;
  }

  /** One event with its `seq`: the steps it releases, in order. */
  push(seq: number, event: IAguiEvent): SequencerStep[] {
    this._broadcast = true;
    const steps: SequencerStep[] = [];
    if (event.type === 'RUN_STARTED') {
      this._runStarted(seq, event, steps);
      return steps;
    }
    const run = this._run;
    if (this._replayOfEndedRun) {
      return steps;
    }
    if (!run || run.ended) {
      // A run whose RUN_STARTED is still on its way (a live event that
      // overtook the replay of a join): kept for that run.
      this._holdEarly(seq, event);
    } else if (seq <= run.lastSeq) {
      // Already applied: a replay.
    } else if (seq > run.lastSeq + 1) {
      run.pending.set(seq, event);
      if (run.pending.size > MAX_REORDER) {
        this._skipGap(run, steps);
      }
    } else {
      this._applyInOrder(run, seq, event, steps);
    }
    return steps;
  }

  private _runStarted(
    seq: number,
    event: IAguiEvent,
    steps: SequencerStep[]
  ): void {
    const runId = stringField(event, 'runId');
    const current = this._run;
    if (current && current.runId === runId) {
      // A replay of the run being applied (dropped up to `lastSeq`), or of
      // one already over (dropped whole, up to the next run).
      this._replayOfEndedRun = current.ended;
      return;
    }
    this._replayOfEndedRun = false;
    const run: ISequencedRun = {
      runId,
      lastSeq: seq - 1,
      pending: new Map(),
      ended: false
    };
    for (const [at, held] of this._early) {
      if (at > seq) {
        run.pending.set(at, held);
      }
    }
    this._early.clear();
    this._run = run;
    steps.push({ kind: 'run', runId });
    this._applyInOrder(run, seq, event, steps);
  }

  private _holdEarly(seq: number, event: IAguiEvent): void {
    this._early.set(seq, event);
    if (this._early.size > MAX_REORDER) {
      this._early.delete(Math.min(...this._early.keys()));
    }
  }

  /** `event` at `seq`, then the pending ones that follow it without a gap. */
  private _applyInOrder(
    run: ISequencedRun,
    seq: number,
    event: IAguiEvent,
    steps: SequencerStep[]
  ): void {
    let next: IAguiEvent | undefined = event;
    let at = seq;
    while (next) {
      run.lastSeq = at;
      if (!run.ended) {
        steps.push({ kind: 'event', event: next });
        run.ended = isTerminalEvent(next);
      }
      at += 1;
      next = run.pending.get(at);
      run.pending.delete(at);
    }
  }

  /** Too much is missing: go on from the first event held. */
  private _skipGap(run: ISequencedRun, steps: SequencerStep[]): void {
    const first = Math.min(...run.pending.keys());
    steps.push({
      kind: 'gap',
      runId: run.runId,
      from: run.lastSeq + 1,
      to: first - 1
    });
    const event = run.pending.get(first)!;
    run.pending.delete(first);
    this._applyInOrder(run, first, event, steps);
  }

  private _broadcast = false;
  private _run: ISequencedRun | null = null;
  /** Events seen before their run's RUN_STARTED. */
  private readonly _early = new Map<number, IAguiEvent>();
  private _replayOfEndedRun = false;
}
