/**
 * One AG-UI thread on a chanx connection: the `agui:thread:<id>` topic,
 * subscribed while a turn runs or someone follows the thread (chanx
 * subscribes it again after each reconnect, and the server replays what is
 * in flight), our `ag_ui_run`, and every `ag_ui_event` through the
 * sequencer (order, replays) to the run router (whose run it is).
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import { parseEvent } from '../../agui/events';
import { AguiThread } from '../../agui/thread';
import type { JsonObject } from '../../wire/json';
import type { ChanxConnection } from './chanx';
import { atSource } from '../frame-output';
import { RunRouter, type RunFollower } from './run-router';
import { RunSequencer } from './run-sequencer';
import type { ITurnChannel, WsTurn } from './ws-turn';

export class ThreadChannel implements IDisposable, ITurnChannel {
  constructor(
    private readonly _connection: ChanxConnection,
    readonly threadId: string,
    private readonly _trans: TranslationBundle
  ) {
    this.topic = `agui:thread:${threadId}`;
    this._thread = new AguiThread(threadId);
    this._router = new RunRouter({
      url: _connection.url,
      thread: this._thread,
      trans: _trans,
      cancel: runId => this.cancel(runId)
    });
  }

  readonly topic: string;

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  start(turn: WsTurn): void {
    const current = this._router.turn;
    if (current && !current.ended) {
      turn.fail(
        this._trans.__(
          'a turn is already running on thread %1; wait for it to end',
          this.threadId
        )
      );
      return;
    }
    this._router.turn = turn;
    turn.attach(this);
    if (this._subscribed) {
      this._sendRun(turn);
    } else {
      this._subscribe();
    }
  }

  /**
   * Show the runs other clients start to `onRun`; such a run continues the
   * conversation `memory` gives (the thread is loaded from it first).
   */
  follow(
    onRun: RunFollower,
    memory?: () => JsonObject | undefined
  ): IDisposable {
    const followers = this._router.followers;
    followers.add(onRun);
    if (memory) {
      this._router.memory = memory;
    }
    this._subscribe();
    return {
      isDisposed: false,
      dispose: () => {
        followers.delete(onRun);
      }
    };
  }

  /** Ask the server to stop `runId` (any tab may). */
  cancel(runId: string): boolean {
    return this._connection.send(this.topic, 'ag_ui_cancel', { runId });
  }

  /**
   * The turn is over: forget it, and leave the topic unless someone follows
   * it (the thread's memory stays for the next turn or a resume).
   */
  release(turn: WsTurn): void {
    const router = this._router;
    router.release(turn);
    if (router.turn === null && router.followers.size === 0) {
      this._leave();
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._router.turn?.fail(
      this._trans.__(
        'the AG-UI connection to %1 was closed',
        this._connection.url
      )
    );
    this._subscription?.dispose();
    this._router.followers.clear();
  }

  private _subscribe(): void {
    if (this._subscription) {
      return;
    }
    this._subscription = this._connection.subscribe(this.topic, {
      subscribed: () => this._onSubscribed(),
      error: message => this._onError(message),
      frame: frame => this._onFrame(frame),
      disconnected: reason => this._onDisconnected(reason)
    });
  }

  private _leave(): void {
    this._subscription?.dispose();
    this._subscription = null;
    this._subscribed = false;
  }

  private _onSubscribed(): void {
    this._subscribed = true;
    const turn = this._router.turn;
    if (turn && !turn.runSent) {
      this._sendRun(turn);
    }
  }

  private _sendRun(turn: WsTurn): void {
    const input = turn.buildInput(this._thread);
    if (!this._connection.send(this.topic, 'ag_ui_run', input)) {
      // Closed in between: the next `subscribed` sends it.
      return;
    }
    turn.runSent = true;
  }

  private _onError(message: string): void {
    const { url } = this._connection;
    const turn = this._router.turn;
    if (!this._subscribed) {
      // Refused at subscription: nothing on this thread can work.
      this._leave();
      turn?.fail(this._trans.__('%1 refused %2: %3', url, this.topic, message));
      return;
    }
    turn?.diagnostic(atSource(url, message, this._trans));
  }

  private _onDisconnected(reason: string): void {
    this._subscribed = false;
    const turn = this._router.turn;
    if (!turn) {
      return;
    }
    if (
      turn.runSent &&
      this._router.isApplying(turn) &&
      !this._sequencer.broadcast
    ) {
      // Without broadcast the server cancels a run when its socket closes.
      turn.fail(
        this._trans.__(
          '%1; the server stops a run when its socket closes',
          reason
        )
      );
      return;
    }
    turn.diagnostic(
      this._trans.__('%1; reconnecting to replay the run', reason)
    );
  }

  private _onFrame(frame: JsonObject): void {
    if (frame.action !== 'ag_ui_event') {
      return;
    }
    const parsed = parseEvent(frame.payload);
    if (!parsed.ok) {
      this._router.turn?.diagnostic(
        atSource(this._connection.url, parsed.problem, this._trans)
      );
      return;
    }
    if (typeof frame.seq !== 'number') {
      this._router.unsequenced(parsed.event, this._sequencer.broadcast);
      return;
    }
    for (const step of this._sequencer.push(frame.seq, parsed.event)) {
      this._router.step(step);
    }
  }

  /** What the thread remembers across its runs. */
  private readonly _thread: AguiThread;
  private readonly _router: RunRouter;
  private readonly _sequencer = new RunSequencer();
  private _subscription: IDisposable | null = null;
  private _subscribed = false;
  private _isDisposed = false;
}
