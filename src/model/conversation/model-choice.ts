/**
 * The model of the conversation shown (docs/protocol.md §16.3): what its
 * endpoint offers, for the header's model picker and the empty
 * conversation's hint, and the conversation's own choice.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import { offersModel, type IModelOffer } from '../../contracts/models';
import type {
  IEndpointSettings,
  IPanelSettings
} from '../../contracts/settings';
import type {
  HealthMonitor,
  IHealthStatus
} from '../connection/health-monitor';
import { ModelOffers } from '../connection/model-offers';
import type { IConnectionTestEvent } from '../connection/transport-connection';
import type { ChatModel } from './chat-model';
import type { ICurrentChange } from './session';

/** What the choice follows: the conversation shown and its endpoint (the panel's service). */
export interface IModelChoiceHost {
  readonly model: ChatModel;
  readonly endpoint: IEndpointSettings;
  readonly health: HealthMonitor;
  readonly connectionChanged: ISignal<unknown, void>;
  readonly settingsChanged: ISignal<unknown, IPanelSettings>;
  readonly currentChanged: ISignal<unknown, ICurrentChange>;
  readonly connectionTest: ISignal<unknown, IConnectionTestEvent>;
}

/**
 * Follows the conversation shown and asks its endpoint for the models on
 * offer when the endpoint, the conversation shown or the settings change
 * (one answer per endpoint stands for 30 s), and afresh after "Test
 * connection" or when the endpoint's health says its offer changed (a key
 * set, the server restarted). A conversation moved to another endpoint
 * drops a model that endpoint does not offer: it would refuse it.
 */
export class ModelChoice implements IDisposable {
  constructor(
    private readonly _service: IModelChoiceHost,
    private readonly _trans: TranslationBundle,
    private readonly _offers = new ModelOffers()
  ) {
    _service.connectionChanged.connect(this._onConnection, this);
    _service.settingsChanged.connect(this._onConnection, this);
    _service.currentChanged.connect(this._onCurrentChanged, this);
    _service.connectionTest.connect(this._onTest, this);
    _service.health.changed.connect(this._onHealth, this);
    this._follow(_service.model);
    this.refresh();
  }

  /**
   * What the shown conversation's endpoint offers when it lets the
   * conversation choose; null when it does not, while it is not known yet,
   * and when it could not be asked.
   */
  get offer(): IModelOffer | null {
    return this._offer;
  }

  /** The model the conversation shown chose; null: its endpoint's default. */
  get chosen(): string | null {
    return this._service.model.chosenModel;
  }

  /** The offer, the conversation shown, its model or its status changed. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /** Why the conversation cannot change its model now, or null. */
  get blocked(): string | null {
    return this._service.model.status === 'running'
      ? this._trans.__(
          'A turn is running: choose a model once it ends (or press Stop).'
        )
      : null;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * The model of the conversation shown from its next request on (null:
   * its endpoint's default); throws why it cannot be chosen.
   */
  choose(model: string | null): void {
    const blocked = this.blocked;
    if (blocked) {
      throw new Error(blocked);
    }
    if (model !== null && !(this._offer && offersModel(this._offer, model))) {
      throw new Error(
        this._trans.__('This endpoint does not offer the model "%1".', model)
      );
    }
    this._service.model.chosenModel = model;
  }

  /** Ask the endpoint (`fresh`: even if it answered less than 30 s ago). */
  refresh(fresh = false): void {
    void this._load(fresh);
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    Signal.disconnectReceiver(this);
    Signal.clearData(this);
  }

  /**
   * The offer of the shown conversation's endpoint, made this choice's own
   * unless a later load started meanwhile; null when unknown (or disposed
   * meanwhile).
   */
  private async _load(fresh: boolean): Promise<IModelOffer | null> {
    const { endpoint, model } = this._service;
    const transport = model.transport;
    const generation = ++this._generation;
    const offer = transport
      ? await this._offers.offerOf(endpoint, transport, fresh)
      : null;
    if (this._isDisposed) {
      return null;
    }
    if (generation === this._generation) {
      this._settled = generation;
      const shown = offer?.choosable ? offer : null;
      if (shown !== this._offer) {
        this._offer = shown;
        this._changed.emit();
      }
    }
    return offer;
  }

  private _onConnection(): void {
    this.refresh();
  }

  private _onCurrentChanged(
    _: unknown,
    { current, previous }: ICurrentChange
  ): void {
    this._unfollow(previous.model);
    this._follow(current.model);
    this._changed.emit();
    this.refresh();
  }

  /** "Test connection" finished: the user asks how the endpoint is now. */
  private _onTest(_: unknown, { report }: IConnectionTestEvent): void {
    if (report) {
      this.refresh(true);
    }
  }

  /**
   * The health answer names another default, or a choice where none was
   * (an answer on its way settles that anyway).
   */
  private _onHealth(_: HealthMonitor, status: IHealthStatus): void {
    const offer = this._offer;
    if (
      status.modelChoice !== undefined &&
      this._settled === this._generation &&
      (status.modelChoice !== (offer !== null) ||
        (offer !== null && status.defaultModel !== offer.defaultModel))
    ) {
      this.refresh(true);
    }
  }

  /** Moved to another endpoint: keep its model only if that one offers it. */
  private _onEndpointChanged(model: ChatModel): void {
    const name = this._service.endpoint.name;
    if (name === this._endpointName) {
      return;
    }
    this._endpointName = name;
    const chosen = model.chosenModel;
    void this._load(false).then(offer => {
      if (
        offer &&
        chosen !== null &&
        model.chosenModel === chosen &&
        this._service.model === model &&
        this._service.endpoint.name === name &&
        !offersModel(offer, chosen)
      ) {
        model.chosenModel = null;
      }
    });
  }

  private _emitChanged(): void {
    this._changed.emit();
  }

  private _follow(model: ChatModel): void {
    this._endpointName = this._service.endpoint.name;
    model.endpointChanged.connect(this._onEndpointChanged, this);
    model.chosenModelChanged.connect(this._emitChanged, this);
    model.statusChanged.connect(this._emitChanged, this);
  }

  private _unfollow(model: ChatModel): void {
    model.endpointChanged.disconnect(this._onEndpointChanged, this);
    model.chosenModelChanged.disconnect(this._emitChanged, this);
    model.statusChanged.disconnect(this._emitChanged, this);
  }

  private _offer: IModelOffer | null = null;
  /** The last load whose answer `offer` holds. */
  private _settled = -1;
  /** The endpoint of the conversation shown, to tell a move from a naming. */
  private _endpointName = '';
  private _generation = 0;
  private _isDisposed = false;
  private readonly _changed = new Signal<this, void>(this);
}
