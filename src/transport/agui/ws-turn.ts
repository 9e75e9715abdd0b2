/**
 * One turn of ours on an AG-UI websocket thread: its run input and id, the
 * connect and idle timeouts, Stop with its grace, and ending exactly once.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { PromiseDelegate } from '@lumino/coreutils';
import { runInput } from '../../agui/request';
import type { AguiThread } from '../../agui/thread';
import {
  cancelledByUser,
  type AguiRunMapper
} from '../../agui/to-chunk-frames';
import type {
  HistoryMode,
  ITurnHandle,
  ITurnSink,
  TurnRequest
} from '../../wire/turn';
import type { IEndpointTimeouts } from '../endpoint';
import { atSource } from '../frame-output';
import { IdleWatch } from '../idle-watch';

export interface IWsTurnOptions extends IEndpointTimeouts {
  url: string;
  /** How long Stop waits for the run to end before ending the turn here. */
  cancelGraceMs: number;
  /** What a run carries of the conversation (the endpoint's `history`). */
  history?: HistoryMode;
  trans: TranslationBundle;
}

/** What a turn needs of its thread's channel. */
export interface ITurnChannel {
  /** Ask the server to stop `runId`. */
  cancel(runId: string): boolean;
  /** The turn is over. */
  release(turn: WsTurn): void;
}

export class WsTurn implements ITurnHandle {
  constructor(
    private readonly _options: IWsTurnOptions,
    private readonly _request: TurnRequest,
    readonly sink: ITurnSink
  ) {
    const { url, connectTimeoutMs, idleTimeoutMs, trans } = _options;
    this._connectTimer = setTimeout(
      () =>
        this.fail(
          trans.__(
            'no run started on %1 within %2 s',
            url,
            connectTimeoutMs / 1000
          )
        ),
      connectTimeoutMs
    );
    this._idle = new IdleWatch(idleTimeoutMs, () =>
      this.fail(
        trans.__(
          'no event from %1 for %2 s (idle timeout)',
          url,
          idleTimeoutMs / 1000
        )
      )
    );
  }

  get done(): Promise<void> {
    return this._done.promise;
  }
  /** The `ag_ui_run` frame went out. */
  runSent = false;
  /** Our `RUN_STARTED` arrived. */
  started = false;
  ended = false;
  runId: string | null = null;

  attach(channel: ITurnChannel): void {
    this._channel = channel;
  }

  /**
   * The run input (fresh run id): `thread` becomes the conversation's, as
   * the request's memory has it, extended by the request.
   */
  buildInput(thread: AguiThread): unknown {
    thread.load(this._request.memory);
    const { input, note } = runInput(
      this._request,
      thread,
      this._options.history
    );
    if (note) {
      this.diagnostic(atSource(this._options.url, note, this._options.trans));
    }
    this.runId = input.runId;
    return input;
  }

  onStarted(mapper: AguiRunMapper): void {
    this.started = true;
    this._mapper = mapper;
    clearTimeout(this._connectTimer);
    if (this._stopRequested) {
      this._sendCancel();
    }
    this.touch();
  }

  /** An event of our run arrived: the idle timeout starts again. */
  touch(): void {
    this._idle.note();
  }

  stop(): void {
    if (this.ended || this._stopRequested) {
      return;
    }
    this._stopRequested = true;
    if (this.started) {
      this._sendCancel();
    }
    // Not started, or the server does not answer: end the turn here.
    clearTimeout(this._connectTimer);
    this._idle.dispose();
    this._graceTimer = setTimeout(() => {
      this.sink.frame(cancelledByUser());
      this.finish();
    }, this._options.cancelGraceMs);
  }

  /** Another run took the thread over before ours ended. */
  runOvertaken(runId: string | null): void {
    this.fail(
      this._options.trans.__(
        'run %1 started on this thread before ours ended',
        runId
      )
    );
  }

  diagnostic(message: string): void {
    if (!this.ended) {
      this.sink.diagnostic(message);
    }
  }

  /** End the turn because the transport failed. */
  fail(reason: string): void {
    if (!this.ended) {
      this._end(reason);
    }
  }

  /** Our run reached its terminal event. */
  finish(): void {
    if (!this.ended) {
      this._end(undefined);
    }
  }

  private _sendCancel(): void {
    this._mapper?.noteCancelRequested();
    if (this.runId !== null) {
      this._channel?.cancel(this.runId);
    }
  }

  private _end(reason: string | undefined): void {
    this.ended = true;
    clearTimeout(this._connectTimer);
    clearTimeout(this._graceTimer);
    this._idle.dispose();
    if (!reason && this._mapper && !this._mapper.terminal) {
      this._mapper.endOfStream();
    }
    this._channel?.release(this);
    this.sink.end(reason);
    this._done.resolve();
  }

  private _channel: ITurnChannel | null = null;
  private _mapper: AguiRunMapper | null = null;
  private _stopRequested = false;
  private readonly _idle: IdleWatch;
  private _connectTimer: ReturnType<typeof setTimeout> | undefined;
  private _graceTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly _done = new PromiseDelegate<void>();
}
