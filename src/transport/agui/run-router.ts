/**
 * Where the runs of one AG-UI thread go (docs/protocol.md §9): our turn's run
 * to our turn, another client's run to whoever follows the thread, any other
 * to nobody. A run nobody shows is still followed to its end, so the next
 * one is recognised.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { stringField, type IAguiEvent } from '../../agui/events';
import type { AguiThread } from '../../agui/thread';
import { AguiRunMapper } from '../../agui/to-chunk-frames';
import type { IForeignRun } from '../../contracts/transport';
import type { JsonObject } from '../../wire/json';
import type { ITurnSink } from '../../wire/turn';
import { atSource, sinkOutput } from '../frame-output';
import { isTerminalEvent, type SequencerStep } from './run-sequencer';
import type { WsTurn } from './ws-turn';

/** Whoever follows the thread: the sink for a run, or null to let it pass. */
export type RunFollower = (run: IForeignRun) => ITurnSink | null;

export interface IRunRouterOptions {
  url: string;
  thread: AguiThread;
  trans: TranslationBundle;
  /** Ask the server to stop `runId`. */
  cancel: (runId: string) => boolean;
}

/** The run being applied: ours, a followed one, or one nobody shows. */
interface IRoutedRun {
  /** Our turn, when the run is ours. */
  turn: WsTurn | null;
  /** The sink of a followed run. */
  sink: ITurnSink | null;
  mapper: AguiRunMapper | null;
  /** Its terminal event was applied. */
  ended: boolean;
}

export class RunRouter {
  constructor(private readonly _options: IRunRouterOptions) {}

  /** Our turn on the thread, until it is released. */
  turn: WsTurn | null = null;
  readonly followers = new Set<RunFollower>();
  /** The conversation's memory, which a run another client starts continues. */
  memory: () => JsonObject | undefined = () => undefined;

  /** Whether our turn's run is the one being applied. */
  isApplying(turn: WsTurn): boolean {
    return this._active?.turn === turn;
  }

  /** What the sequencer released. */
  step(step: SequencerStep): void {
    switch (step.kind) {
      case 'run':
        return this._begin(step.runId);
      case 'event':
        return this._apply(step.event);
      case 'gap': {
        const active = this._active;
        (active?.turn ?? active?.sink)?.diagnostic(
          this._options.trans.__(
            'events %1–%2 of run %3 never arrived',
            step.from,
            step.to,
            step.runId
          )
        );
      }
    }
  }

  /** An event without `seq`: outside any broadcast run (docs/protocol.md §9.4–9.5). */
  unsequenced(event: IAguiEvent, broadcast: boolean): void {
    const { url, trans } = this._options;
    const turn = this.turn;
    if (this._active?.turn === turn && turn && !broadcast) {
      // A server without broadcast: our run's events carry no seq.
      this._apply(event);
      return;
    }
    if (event.type === 'RUN_STARTED' && turn && !broadcast) {
      this._begin(stringField(event, 'runId'));
      this._apply(event);
      return;
    }
    if (event.type === 'RUN_ERROR') {
      const message =
        stringField(event, 'message') || trans.__('the run was refused');
      if (turn && !turn.started) {
        // Our ag_ui_run was refused (another run holds the thread).
        turn.fail(atSource(url, message, trans));
      } else {
        // A refusal that is not about the run in flight: a notice only.
        turn?.diagnostic(atSource(url, message, trans));
      }
    }
    // Initial state (a transcript snapshot): the panel keeps its own.
  }

  /** Our turn is over: its run (if still applied) goes on unshown. */
  release(turn: WsTurn): void {
    if (this.turn === turn) {
      this.turn = null;
    }
    if (this._active?.turn === turn) {
      this._active.turn = null;
      this._active.mapper = null;
    }
  }

  /** Route a new run to our turn, to a follower, or to nobody. */
  private _begin(runId: string | null): void {
    this._active?.turn?.runOvertaken(runId);
    const { url, thread, trans, cancel } = this._options;
    const turn = this.turn;
    const ours = turn !== null && turn.runId === runId;
    let sink: ITurnSink | null = null;
    if (!ours && runId !== null) {
      const foreign: IForeignRun = { runId, stop: () => cancel(runId) };
      for (const follower of this.followers) {
        sink = follower(foreign) ?? sink;
      }
    }
    if (!ours && sink) {
      thread.load(this.memory());
    }
    const output = ours ? turn.sink : sink;
    const mapper = output
      ? new AguiRunMapper(thread, sinkOutput(output, url, trans))
      : null;
    this._active = { turn: ours ? turn : null, sink, mapper, ended: false };
    if (ours) {
      turn.onStarted(mapper!);
    }
  }

  private _apply(event: IAguiEvent): void {
    const active = this._active;
    if (!active || active.ended) {
      return;
    }
    active.turn?.touch();
    active.mapper?.apply(event);
    // A run nobody shows still ends, so the next one is recognised.
    if (!isTerminalEvent(event)) {
      return;
    }
    active.ended = true;
    active.mapper = null;
    if (active.turn) {
      active.turn.finish();
    } else {
      active.sink?.end();
    }
  }

  private _active: IRoutedRun | null = null;
}
