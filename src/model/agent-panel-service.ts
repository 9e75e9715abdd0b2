import { DisposableDelegate, IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import {
  DEFAULT_SETTINGS,
  IEndpointSettings,
  IPanelSettings,
  TransportKind
} from '../settings';
import type { IAgentPanel, IItemAction, TransportFactory } from '../tokens';
import type { IAgentTransport } from '../transport/types';
import type { ChatModel, ChatStatus } from './chat-model';
import { HealthMonitor } from './health-monitor';

/**
 * Connects the chat model to the transport its endpoint needs, and keeps
 * the item actions other plugins contribute.
 */
export class AgentPanelService implements IAgentPanel, IDisposable {
  constructor(readonly model: ChatModel) {
    model.statusChanged.connect(this._onStatus, this);
  }

  get settings(): IPanelSettings {
    return this._settings;
  }

  get settingsChanged(): ISignal<this, IPanelSettings> {
    return this._settingsChanged;
  }

  /** The endpoint new turns go to. */
  get endpoint(): IEndpointSettings {
    const { endpoints, defaultEndpoint } = this._settings;
    return endpoints.find(e => e.name === defaultEndpoint) ?? endpoints[0];
  }

  /** Why the endpoint cannot be used, or null. */
  get problem(): string | null {
    return this._problem;
  }

  /** The endpoint, its transport or its problem changed. */
  get connectionChanged(): ISignal<this, void> {
    return this._connectionChanged;
  }

  /** The health of the current endpoint; polled once `health.start()` runs. */
  get health(): HealthMonitor {
    return this._health;
  }

  get itemActions(): readonly IItemAction[] {
    return this._itemActions;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  setSettings(settings: IPanelSettings): void {
    this._settings = settings;
    this._settingsChanged.emit(settings);
    this._connect();
  }

  registerTransport(
    kind: TransportKind,
    factory: TransportFactory
  ): IDisposable {
    this._factories.set(kind, factory);
    this._connect();
    return new DisposableDelegate(() => {
      if (this._factories.get(kind) === factory) {
        this._factories.delete(kind);
        this._connect();
      }
    });
  }

  addItemAction(action: IItemAction): IDisposable {
    this._itemActions = [...this._itemActions, action].sort(
      (a, b) => (a.rank ?? 100) - (b.rank ?? 100)
    );
    return new DisposableDelegate(() => {
      this._itemActions = this._itemActions.filter(a => a !== action);
    });
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._health.dispose();
    this.model.transport?.dispose();
    this.model.transport = null;
    this._retiring.forEach(transport => transport.dispose());
    this._retiring.clear();
    Signal.clearData(this);
  }

  private _connect(): void {
    if (this._isDisposed) {
      return;
    }
    const endpoint = this.endpoint;
    const factory = this._factories.get(endpoint.transport);
    this._retire(this.model.transport);
    this.model.transport = null;
    this._problem = null;
    if (!factory) {
      this._problem = `No ${endpoint.transport} transport is available for endpoint "${endpoint.name}".`;
    } else {
      try {
        const transport = factory(endpoint);
        transport.labelChanged?.connect(this._onLabelChanged, this);
        this.model.transport = transport;
      } catch (error) {
        this._problem = `Endpoint "${endpoint.name}": ${
          error instanceof Error ? error.message : String(error)
        }`;
      }
    }
    const transport = this.model.transport;
    this._health.setTarget(
      transport ? () => transport.checkHealth() : null,
      this._problem
    );
    this._connectionChanged.emit();
  }

  /** E.g. the comm now follows another notebook: its kernel may differ. */
  private _onLabelChanged(): void {
    this._health.refresh();
    this._connectionChanged.emit();
  }

  /** A running turn keeps its transport until it ends. */
  private _retire(transport: IAgentTransport | null): void {
    if (!transport) {
      return;
    }
    transport.labelChanged?.disconnect(this._onLabelChanged, this);
    if (this.model.status === 'running') {
      this._retiring.add(transport);
    } else {
      transport.dispose();
    }
  }

  private _onStatus(_: ChatModel, status: ChatStatus): void {
    if (status !== 'running') {
      this._retiring.forEach(transport => transport.dispose());
      this._retiring.clear();
    }
  }

  private _settings: IPanelSettings = DEFAULT_SETTINGS;
  private _problem: string | null = null;
  private _isDisposed = false;
  private _itemActions: IItemAction[] = [];
  private readonly _health = new HealthMonitor();
  private readonly _factories = new Map<TransportKind, TransportFactory>();
  private readonly _retiring = new Set<IAgentTransport>();
  private readonly _settingsChanged = new Signal<this, IPanelSettings>(this);
  private readonly _connectionChanged = new Signal<this, void>(this);
}
