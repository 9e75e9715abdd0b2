/**
 * The transport of the conversation shown: which endpoint it belongs to,
 * the transport built for it from the factory its kind registered, its
 * health, and "Test connection".
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { DisposableDelegate, IDisposable } from '@lumino/disposable';
import { Signal } from '@lumino/signaling';
import type { TransportFactory } from '../../contracts/extension-points';
import {
  IEndpointSettings,
  IPanelSettings,
  sameEndpoint,
  TransportKind
} from '../../contracts/settings';
import type { IAgentTransport } from '../../contracts/transport';
import type { IConnectionProbe } from '../../transport/http/probe';
import { errorMessage } from '../../wire/json';
import type { IConnectionReport } from './connection-check';
import { HealthMonitor } from './health-monitor';

/** A "Test connection" started (`report` null) or finished. */
export interface IConnectionTestEvent {
  endpoint: string;
  report: IConnectionReport | null;
}

/** What the connection reads and sets of a conversation. */
export interface IConnectedConversation {
  transport: IAgentTransport | null;
  /** Its own endpoint (null: it follows the default). */
  endpointName: string | null;
  readonly status: string;
}

export interface ITransportConnectionOptions {
  /** The conversation shown. */
  shown: () => IConnectedConversation;
  settings: () => IPanelSettings;
  /** The endpoint, its transport or its problem changed. */
  changed: () => void;
  /** A "Test connection" started or finished. */
  tested: (event: IConnectionTestEvent) => void;
  /** What "Test connection" uses; loaded when a test first runs. */
  loadProbe: (() => Promise<IConnectionProbe>) | null;
  trans: TranslationBundle;
}

/**
 * Connects the conversation shown to the transport its endpoint needs.
 * Each conversation belongs to an endpoint: the one picked for it, or the
 * one its first message went to; a new conversation follows the default
 * until then. The transport is rebuilt only when its endpoint's settings or
 * its factory change; a running turn keeps its transport until it ends.
 */
export class TransportConnection implements IDisposable {
  constructor(private readonly _options: ITransportConnectionOptions) {}

  /** The endpoint of the conversation (its own, else the default). */
  get endpoint(): IEndpointSettings {
    const { endpoints } = this._options.settings();
    const own = this._options.shown().endpointName;
    return (
      (own !== null && endpoints.find(e => e.name === own)) ||
      this.defaultEndpoint
    );
  }

  get defaultEndpoint(): IEndpointSettings {
    const { endpoints, defaultEndpoint } = this._options.settings();
    return endpoints.find(e => e.name === defaultEndpoint) ?? endpoints[0];
  }

  /**
   * The conversation's own endpoint when the settings no longer have it
   * (the default is used instead), else null.
   */
  get missingEndpoint(): string | null {
    const own = this._options.shown().endpointName;
    return own !== null && own !== this.endpoint.name ? own : null;
  }

  /** Why the endpoint cannot be used, or null. */
  get problem(): string | null {
    return this._problem;
  }

  /** A "Test connection" runs. */
  get testing(): boolean {
    return this._testing;
  }

  /** The health of the current endpoint; polled once `health.start()` runs. */
  get health(): HealthMonitor {
    return this._health;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Why the conversation cannot change endpoint now, or null. */
  get switchBlocked(): string | null {
    const { trans } = this._options;
    switch (this._options.shown().status) {
      case 'running':
        return trans.__(
          'A turn is running: switch endpoints once it ends (or press Stop).'
        );
      case 'awaiting-decision':
        return trans.__(
          'The agent waits for your review: answer it before switching endpoints (only this endpoint can resume it).'
        );
      default:
        return null;
    }
  }

  /** Move the conversation to the endpoint `name`; throws why it cannot. */
  selectEndpoint(name: string): void {
    const shown = this._options.shown();
    if (!this._options.settings().endpoints.some(e => e.name === name)) {
      throw new Error(
        this._options.trans.__('No endpoint is named "%1".', name)
      );
    }
    if (name === this.endpoint.name && shown.endpointName === name) {
      return;
    }
    const blocked = this.switchBlocked;
    if (blocked) {
      throw new Error(blocked);
    }
    shown.endpointName = name;
  }

  /** Check the current endpoint once and say what is wrong, if anything. */
  async testConnection(): Promise<IConnectionReport> {
    const { loadProbe, trans, tested } = this._options;
    if (!loadProbe) {
      throw new Error('AgentPanelService: no connection probe was given');
    }
    const endpoint = this.endpoint;
    this._testing = true;
    tested({ endpoint: endpoint.name, report: null });
    let report: IConnectionReport;
    try {
      const [{ checkConnection }, probe] = await Promise.all([
        import('./connection-check'),
        loadProbe()
      ]);
      report = await checkConnection({
        endpoint,
        transport: this._options.shown().transport,
        problem: this._problem,
        probe,
        trans
      });
    } catch (error) {
      report = {
        endpoint: endpoint.name,
        target: endpoint.url,
        verdict: 'unreachable',
        ok: false,
        summary: trans.__('The check itself failed'),
        detail: errorMessage(error)
      };
    } finally {
      this._testing = false;
    }
    if (!this._isDisposed) {
      this._health.refresh();
      tested({ endpoint: endpoint.name, report });
    }
    return report;
  }

  /** Provide the transport for endpoints of `kind`. */
  register(kind: TransportKind, factory: TransportFactory): IDisposable {
    this._factories.set(kind, factory);
    this.connect(kind === this.endpoint.transport);
    return new DisposableDelegate(() => {
      if (this._factories.get(kind) === factory) {
        this._factories.delete(kind);
        this.connect(kind === this.endpoint.transport);
      }
    });
  }

  /**
   * Build the transport of the conversation's endpoint, unless it is already
   * connected with the same settings (`force`: its factory changed).
   * Returns whether it reconnected.
   */
  connect(force = false): boolean {
    if (this._isDisposed) {
      return false;
    }
    const endpoint = this.endpoint;
    const connected = this._connected;
    if (!force && connected && sameEndpoint(connected, endpoint)) {
      return false;
    }
    this._connected = endpoint;
    const shown = this._options.shown();
    this._retire(shown.transport, shown.status === 'running');
    shown.transport = null;
    this._problem = null;
    try {
      shown.transport = this._build(endpoint);
    } catch (error) {
      this._problem = this._options.trans.__(
        'Endpoint "%1": %2',
        endpoint.name,
        errorMessage(error)
      );
    }
    const transport = shown.transport;
    this._health.setTarget(
      transport ? () => transport.checkHealth() : null,
      this._problem
    );
    this._options.changed();
    return true;
  }

  /** The conversation's endpoint changed, or only its own name for it did. */
  endpointChanged(): void {
    if (!this.connect()) {
      this._options.changed();
    }
  }

  /**
   * The panel stops showing `previous`: it keeps its transport while its
   * turn runs (its frames land in its own model); otherwise the transport
   * is released.
   */
  leave(previous: IConnectedConversation): void {
    const transport = previous.transport;
    if (!transport) {
      return;
    }
    transport.labelChanged?.disconnect(this._onLabelChanged, this);
    if (previous.status !== 'running') {
      transport.dispose();
      previous.transport = null;
    }
  }

  /** The panel shows another conversation: connect it, or take the transport it kept. */
  arrive(): void {
    this._connected = null;
    const kept = this._options.shown().transport;
    if (!kept) {
      this.connect();
      return;
    }
    // A conversation still running in the background keeps its transport.
    this._connected = this.endpoint;
    kept.labelChanged?.connect(this._onLabelChanged, this);
    this._problem = null;
    this._health.setTarget(() => kept.checkHealth(), null);
    this._options.changed();
  }

  /**
   * A turn of the conversation shown ended: the transports it kept go. A
   * failed turn may mean the agent went away: its health says so now, not
   * at the next periodic check.
   */
  turnEnded(failed: boolean): void {
    this._disposeRetiring();
    if (failed) {
      this._health.refresh();
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._health.dispose();
    this._disposeRetiring();
    Signal.clearData(this);
  }

  /**
   * The transport of `endpoint`, listened to; null (the problem noted) when
   * no factory serves its kind. Throws what its factory threw.
   */
  private _build(endpoint: IEndpointSettings): IAgentTransport | null {
    const factory = this._factories.get(endpoint.transport);
    if (!factory) {
      this._problem = this._options.trans.__(
        'No %1 transport is available for endpoint "%2".',
        endpoint.transport,
        endpoint.name
      );
      return null;
    }
    const transport = factory(endpoint);
    transport.labelChanged?.connect(this._onLabelChanged, this);
    return transport;
  }

  /** E.g. the comm now follows another notebook: its kernel may differ. */
  private _onLabelChanged(): void {
    this._health.refresh();
    this._options.changed();
  }

  /** A running turn keeps its transport until it ends. */
  private _retire(transport: IAgentTransport | null, running: boolean): void {
    if (!transport) {
      return;
    }
    transport.labelChanged?.disconnect(this._onLabelChanged, this);
    if (running) {
      this._retiring.add(transport);
    } else {
      transport.dispose();
    }
  }

  private _disposeRetiring(): void {
    this._retiring.forEach(transport => transport.dispose());
    this._retiring.clear();
  }

  private _problem: string | null = null;
  private _connected: IEndpointSettings | null = null;
  private _testing = false;
  private _isDisposed = false;
  private readonly _health = new HealthMonitor();
  private readonly _factories = new Map<TransportKind, TransportFactory>();
  private readonly _retiring = new Set<IAgentTransport>();
}
