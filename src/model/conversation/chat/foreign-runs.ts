/**
 * The runs other clients start on a conversation's thread (another tab, the
 * kernel, or a run still going after a reload), followed when the transport
 * can see them and shown as the running turn when nothing runs here.
 */
import type { IDisposable } from '@lumino/disposable';
import type { IForeignRun } from '../../../contracts/transport';
import type { ITurnSink } from '../../../wire/turn';
import type { IConversationState } from './conversation-state';
import type { TurnRunner } from './running-turn';

/** What following the thread reads of the conversation and tells it. */
export interface IForeignRunsHost {
  readonly state: IConversationState;
  readonly runner: TurnRunner;
  /** Whether a turn streams or client tools run here. */
  busy(): boolean;
  /**
   * A run of another tab or window goes on, which the transport cannot
   * show (`ChatModel.runsElsewhere`).
   */
  runsElsewhere(): void;
}

export class ForeignRuns implements IDisposable {
  constructor(private readonly _host: IForeignRunsHost) {}

  /** Whether the thread is followed. */
  get following(): boolean {
    return this._following !== null;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Follow the conversation's thread on its transport, instead of before. */
  follow(): void {
    const { state } = this._host;
    this._following?.dispose();
    this._following =
      state.transport?.followThread?.(
        state.threadId,
        run => this._adopt(run),
        () => state.memory ?? undefined,
        () => this._host.runsElsewhere()
      ) ?? null;
  }

  dispose(): void {
    this._isDisposed = true;
    this._following?.dispose();
    this._following = null;
  }

  private _adopt(run: IForeignRun): ITurnSink | null {
    return this._host.busy() ? null : this._host.runner.adopt(run);
  }

  private _following: IDisposable | null = null;
  private _isDisposed = false;
}
