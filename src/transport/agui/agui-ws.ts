/**
 * AG-UI over a chanx websocket (docs/protocol.md §9): one socket to the
 * endpoint, a subscription to `agui:thread:<id>` per thread, `ag_ui_run`
 * with our own run id, `ag_ui_cancel` to stop. Events come back as
 * `ag_ui_event` frames; with broadcast each carries a per-run `seq` that
 * restarts at 1 on `RUN_STARTED`, which is how a replay after a reconnect
 * (or a join from another tab) is applied once, in order.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import type { IEndpointSettings } from '../../contracts/settings';
import type { JsonObject } from '../../wire/json';
import type {
  IAgentTransport,
  IForeignRun,
  IHealthReport
} from '../../contracts/transport';
import type {
  HistoryMode,
  ITurnHandle,
  ITurnSink,
  TurnRequest
} from '../../wire/turn';
import { AguiBranching } from './branching';
import { ChanxConnection, type SocketFactory } from './chanx';
import { CANCEL_GRACE_MS } from '../defaults';
import { endpointTimeouts, type IEndpointTimeouts } from '../endpoint';
import { ThreadChannel } from './thread-channel';
import { WsTurn, type IWsTurnOptions } from './ws-turn';

export interface IAguiWsOptions extends IEndpointTimeouts {
  /** The chanx route, `ws://…` or `wss://…`. */
  url: string;
  /** How long Stop waits for the run to end before ending the turn here. */
  cancelGraceMs?: number;
  createSocket?: SocketFactory;
  backoffMs?: number[];
  /** What a run carries of the conversation (the endpoint's `history`). */
  history?: HistoryMode;
  trans?: TranslationBundle;
}

export class AguiWsTransport extends AguiBranching implements IAgentTransport {
  constructor(private readonly _options: IAguiWsOptions) {
    super(_options.history, _options.trans);
    this._turnOptions = {
      ..._options,
      cancelGraceMs: _options.cancelGraceMs ?? CANCEL_GRACE_MS,
      trans: this._trans
    };
    this._connection = new ChanxConnection(_options.url, {
      createSocket: _options.createSocket,
      backoffMs: _options.backoffMs,
      trans: this._trans,
      onProblem: message => console.warn(`Agent Panel: ${message}`)
    });
  }

  get label(): string {
    return this._options.url;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  startTurn(request: TurnRequest, sink: ITurnSink): ITurnHandle {
    const channel = this._channel(request.threadId);
    const turn = new WsTurn(this._turnOptions, request, sink);
    channel.start(turn);
    return turn;
  }

  /**
   * Runs on `threadId` that this panel did not start (another tab's, or one
   * still going after a reload), each from its `RUN_STARTED`.
   */
  followThread(
    threadId: string,
    onRun: (run: IForeignRun) => ITurnSink | null,
    memory?: () => JsonObject | undefined
  ): IDisposable {
    return this._channel(threadId).follow(onRun, memory);
  }

  /** Healthy when the socket opens; a chanx route has no name to report. */
  async checkHealth(): Promise<IHealthReport> {
    await this._connection.whenOpen(this._options.connectTimeoutMs);
    return {
      state: 'healthy',
      message: this._trans.__('connected'),
      agentName: null
    };
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    for (const channel of this._channels.values()) {
      channel.dispose();
    }
    this._channels.clear();
    this._connection.dispose();
  }

  private _channel(threadId: string): ThreadChannel {
    if (this._isDisposed) {
      throw new Error(
        this._trans.__('the AG-UI connection to %1 is closed', this.label)
      );
    }
    let channel = this._channels.get(threadId);
    if (!channel) {
      channel = new ThreadChannel(this._connection, threadId, this._trans);
      this._channels.set(threadId, channel);
    }
    return channel;
  }

  private readonly _turnOptions: IWsTurnOptions;
  private readonly _connection: ChanxConnection;
  private readonly _channels = new Map<string, ThreadChannel>();
  private _isDisposed = false;
}

/** `agui` endpoints whose URL is `ws://` or `wss://` use this transport. */
export function isWebSocketUrl(url: string): boolean {
  return /^wss?:\/\//i.test(url.trim());
}

export function aguiWsTransportFactory(
  trans?: TranslationBundle
): (endpoint: IEndpointSettings) => AguiWsTransport {
  return endpoint =>
    new AguiWsTransport({
      url: endpoint.url.trim(),
      ...endpointTimeouts(endpoint),
      history: endpoint.history,
      trans
    });
}
