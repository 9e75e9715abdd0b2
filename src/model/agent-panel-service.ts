import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';
import { DisposableDelegate, IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import {
  DEFAULT_SETTINGS,
  IEndpointSettings,
  IPanelSettings,
  sameEndpoint,
  TransportKind
} from '../contracts/settings';
import type {
  IChangeUndo,
  IInterruptHandler,
  IItemAction,
  TransportFactory
} from '../contracts/extension-points';
import type { IAgentPanel } from './agent-panel';
import type { IConnectionProbe } from '../transport/http/probe';
import type { IAgentTransport } from '../contracts/transport';
import { errorMessage } from '../wire/json';
import type { IActionRequest } from '../wire/types';
import type {
  ChatEntry,
  ChatModel,
  ChatStatus,
  IBranchMove
} from './conversation/chat-model';
import type { IConnectionReport } from './connection/connection-check';
import type {
  ClientToolRegistry,
  IClientTool
} from './conversation/client-tools';
import { ChangeReviews } from './conversation/change-reviews';
import {
  alwaysAllowedReviews,
  isAlwaysAllowed
} from './conversation/always-allowed';
import { ComposerContext } from './conversation/composer-context';
import { InterruptHandlers } from './conversation/interrupt-handlers';
import { HealthMonitor } from './connection/health-monitor';
import type { MessageQueue } from './conversation/message-queue';
import { ModelChoice } from './conversation/model-choice';
import { PlanTracker } from './conversation/plan';
import { NotebookRewinds } from './conversation/rewinds';
import { ConversationSession } from './library/session';

/** A "Test connection" started (`report` null) or finished. */
export interface IConnectionTestEvent {
  endpoint: string;
  report: IConnectionReport | null;
}

/** The panel shows `current` instead of `previous`. */
export interface ICurrentChange {
  current: ConversationSession;
  previous: ConversationSession;
}

export interface IAgentPanelServiceOptions {
  /**
   * What "Test connection" uses for HTTP endpoints and the server's view;
   * loaded when a test first runs.
   */
  loadProbe?: () => Promise<IConnectionProbe>;
  trans?: TranslationBundle;
}

/**
 * Connects the conversation to the transport its endpoint needs, and keeps
 * the item actions other plugins contribute.
 *
 * Each conversation belongs to an endpoint (`ChatModel.endpointName`, saved
 * with it): the one picked for it, or the one its first message went to. A
 * new conversation follows the default endpoint until then. Settings apply
 * at once; the transport is rebuilt only when its endpoint's settings change.
 */
export class AgentPanelService implements IAgentPanel, IDisposable {
  constructor(model: ChatModel, options: IAgentPanelServiceOptions = {}) {
    this._loadProbe = options.loadProbe ?? null;
    this._trans =
      options.trans ?? nullTranslator.load('jupyterlab_agent_panel');
    this._current = new ConversationSession(model.threadId, model, this._trans);
    this.clientTools = model.clientTools;
    this.changeReviews = new ChangeReviews(() => this.model.threadId);
    this.notebookRewinds = new NotebookRewinds(() => this.model, this._trans);
    this._bindModel(model);
    this.plan = new PlanTracker(model, this._trans);
    this._interrupts = new InterruptHandlers(model);
    this._interrupts.register(alwaysAllowedReviews(this.changeReviews));
    this.modelChoice = new ModelChoice(this, this._trans);
  }

  readonly plan: PlanTracker;
  /**
   * The client tools every conversation offers (the first model's registry,
   * which the library gives each model it makes).
   */
  readonly clientTools: ClientToolRegistry;
  readonly composerContext = new ComposerContext();
  readonly changeReviews: ChangeReviews;
  readonly notebookRewinds: NotebookRewinds;
  /** The models the conversation's endpoint offers, and its choice. */
  readonly modelChoice: ModelChoice;

  /** The conversation shown in the panel. */
  get current(): ConversationSession {
    return this._current;
  }

  get model(): ChatModel {
    return this._current.model;
  }

  /** Messages typed while the agent works, sent as turns complete. */
  get queue(): MessageQueue {
    return this._current.queue;
  }

  /** Another conversation is shown (the previous one is the argument's `previous`). */
  get currentChanged(): ISignal<this, ICurrentChange> {
    return this._currentChanged;
  }

  get modelChanged(): ISignal<this, ChatModel> {
    return this._modelChanged;
  }

  /**
   * Show `session` instead of the current conversation. The previous one
   * keeps its transport while its turn runs (its frames land in its own
   * model); otherwise its transport is released. Plugins that follow the
   * panel's conversation (`model`, `plan`, `changeReviews`) follow it.
   */
  show(session: ConversationSession): void {
    const previous = this._current;
    if (session === previous || this._isDisposed) {
      return;
    }
    this._unbindModel(previous.model);
    const transport = previous.model.transport;
    if (transport) {
      transport.labelChanged?.disconnect(this._onLabelChanged, this);
      if (previous.model.status !== 'running') {
        transport.dispose();
        previous.model.transport = null;
      }
    }
    this._current = session;
    this._bindModel(session.model);
    this.plan.follow(session.model);
    this._interrupts.follow(session.model);
    this._connected = null;
    const kept = session.model.transport;
    if (kept) {
      // A conversation still running in the background keeps its transport.
      this._connected = this.endpoint;
      kept.labelChanged?.connect(this._onLabelChanged, this);
      this._problem = null;
      this._health.setTarget(() => kept.checkHealth(), null);
      this._connectionChanged.emit();
    } else {
      this._connect();
    }
    this.changeReviews.conversationChanged();
    this.notebookRewinds.dismiss();
    this._currentChanged.emit({ current: session, previous });
    this._modelChanged.emit(session.model);
  }

  get settings(): IPanelSettings {
    return this._settings;
  }

  get settingsChanged(): ISignal<this, IPanelSettings> {
    return this._settingsChanged;
  }

  /** The endpoint of the conversation (its own, else the default). */
  get endpoint(): IEndpointSettings {
    const { endpoints } = this._settings;
    const own = this.model.endpointName;
    return (
      (own !== null && endpoints.find(e => e.name === own)) ||
      this.defaultEndpoint
    );
  }

  get defaultEndpoint(): IEndpointSettings {
    const { endpoints, defaultEndpoint } = this._settings;
    return endpoints.find(e => e.name === defaultEndpoint) ?? endpoints[0];
  }

  /**
   * The conversation's own endpoint when the settings no longer have it
   * (the default is used instead), else null.
   */
  get missingEndpoint(): string | null {
    const own = this.model.endpointName;
    return own !== null && own !== this.endpoint.name ? own : null;
  }

  /** Why the endpoint cannot be used, or null. */
  get problem(): string | null {
    return this._problem;
  }

  /** The endpoint, its transport or its problem changed. */
  get connectionChanged(): ISignal<this, void> {
    return this._connectionChanged;
  }

  /** A "Test connection" started or finished. */
  get connectionTest(): ISignal<this, IConnectionTestEvent> {
    return this._connectionTest;
  }

  /** A "Test connection" runs. */
  get testing(): boolean {
    return this._testing;
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

  /** Why the conversation cannot change endpoint now, or null. */
  get switchBlocked(): string | null {
    switch (this.model.status) {
      case 'running':
        return this._trans.__(
          'A turn is running: switch endpoints once it ends (or press Stop).'
        );
      case 'awaiting-decision':
        return this._trans.__(
          'The agent waits for your review: answer it before switching endpoints (only this endpoint can resume it).'
        );
      default:
        return null;
    }
  }

  /** Move the conversation to the endpoint `name`; throws why it cannot. */
  selectEndpoint(name: string): void {
    if (!this._settings.endpoints.some(e => e.name === name)) {
      throw new Error(this._trans.__('No endpoint is named "%1".', name));
    }
    if (name === this.endpoint.name && this.model.endpointName === name) {
      return;
    }
    const blocked = this.switchBlocked;
    if (blocked) {
      throw new Error(blocked);
    }
    this.model.endpointName = name;
  }

  /** Check the current endpoint once and say what is wrong, if anything. */
  async testConnection(): Promise<IConnectionReport> {
    const loadProbe = this._loadProbe;
    if (!loadProbe) {
      throw new Error('AgentPanelService: no connection probe was given');
    }
    const endpoint = this.endpoint;
    this._testing = true;
    this._connectionTest.emit({ endpoint: endpoint.name, report: null });
    let report: IConnectionReport;
    try {
      const [{ checkConnection }, probe] = await Promise.all([
        import('./connection/connection-check'),
        loadProbe()
      ]);
      report = await checkConnection({
        endpoint,
        transport: this.model.transport,
        problem: this._problem,
        probe,
        trans: this._trans
      });
    } catch (error) {
      report = {
        endpoint: endpoint.name,
        target: endpoint.url,
        verdict: 'unreachable',
        ok: false,
        summary: this._trans.__('The check itself failed'),
        detail: errorMessage(error)
      };
    } finally {
      this._testing = false;
    }
    if (!this._isDisposed) {
      this._health.refresh();
      this._connectionTest.emit({ endpoint: endpoint.name, report });
    }
    return report;
  }

  registerTransport(
    kind: TransportKind,
    factory: TransportFactory
  ): IDisposable {
    this._factories.set(kind, factory);
    this._connect(kind === this.endpoint.transport);
    return new DisposableDelegate(() => {
      if (this._factories.get(kind) === factory) {
        this._factories.delete(kind);
        this._connect(kind === this.endpoint.transport);
      }
    });
  }

  registerClientTool(tool: IClientTool): IDisposable {
    return this.clientTools.register(tool);
  }

  /** What takes back a change the agent applied, when a plugin provides it. */
  get changeUndo(): IChangeUndo | null {
    return this._changeUndo;
  }

  registerChangeUndo(undo: IChangeUndo): IDisposable {
    this._changeUndo = undo;
    return new DisposableDelegate(() => {
      if (this._changeUndo === undo) {
        this._changeUndo = null;
      }
    });
  }

  registerInterruptHandler(handler: IInterruptHandler): IDisposable {
    return this._interrupts.register(handler);
  }

  /** Whether the panel approves `action` itself: its tool is always allowed (docs/protocol.md §16.6). */
  isAlwaysAllowed(action: IActionRequest): boolean {
    return isAlwaysAllowed(this.changeReviews, action);
  }

  /** Whether a registered handler answers `action` in the user's place. */
  answersInterrupt(action: IActionRequest): boolean {
    return this._interrupts.handles(action);
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
    this._unbindModel(this.model);
    this.plan.dispose();
    this.modelChoice.dispose();
    this._interrupts.dispose();
    this.changeReviews.dispose();
    this.notebookRewinds.dispose();
    this.composerContext.dispose();
    this._health.dispose();
    this._current.dispose();
    this._retiring.forEach(transport => transport.dispose());
    this._retiring.clear();
    Signal.clearData(this);
  }

  private _bindModel(model: ChatModel): void {
    model.statusChanged.connect(this._onStatus, this);
    model.endpointChanged.connect(this._onEndpointChanged, this);
    model.entryAdded.connect(this._onEntryAdded, this);
    model.branchMoved.connect(this._onBranchMoved, this);
    model.cleared.connect(
      this.changeReviews.conversationChanged,
      this.changeReviews
    );
  }

  /**
   * The conversation went back to an earlier point, or to another branch:
   * offer to bring the notebooks back to how they were before the turns
   * left behind (docs/protocol.md §12.11).
   */
  private _onBranchMoved(_: ChatModel, { left }: IBranchMove): void {
    this.notebookRewinds.rewind(left).catch(error => {
      // No notebook tools loaded: no notebook was changed from this panel.
      console.warn('Agent Panel: the notebooks cannot be rewound.', error);
    });
  }

  private _unbindModel(model: ChatModel): void {
    model.statusChanged.disconnect(this._onStatus, this);
    model.endpointChanged.disconnect(this._onEndpointChanged, this);
    model.entryAdded.disconnect(this._onEntryAdded, this);
    model.branchMoved.disconnect(this._onBranchMoved, this);
    model.cleared.disconnect(
      this.changeReviews.conversationChanged,
      this.changeReviews
    );
  }

  /**
   * Build the transport of the conversation's endpoint, unless it is already
   * connected with the same settings (`force`: its factory changed).
   * Returns whether it reconnected.
   */
  private _connect(force = false): boolean {
    if (this._isDisposed) {
      return false;
    }
    const endpoint = this.endpoint;
    const connected = this._connected;
    if (!force && connected && sameEndpoint(connected, endpoint)) {
      return false;
    }
    this._connected = endpoint;
    const factory = this._factories.get(endpoint.transport);
    this._retire(this.model.transport);
    this.model.transport = null;
    this._problem = null;
    if (!factory) {
      this._problem = this._trans.__(
        'No %1 transport is available for endpoint "%2".',
        endpoint.transport,
        endpoint.name
      );
    } else {
      try {
        const transport = factory(endpoint);
        transport.labelChanged?.connect(this._onLabelChanged, this);
        this.model.transport = transport;
      } catch (error) {
        this._problem = this._trans.__(
          'Endpoint "%1": %2',
          endpoint.name,
          errorMessage(error)
        );
      }
    }
    const transport = this.model.transport;
    this._health.setTarget(
      transport ? () => transport.checkHealth() : null,
      this._problem
    );
    this._connectionChanged.emit();
    return true;
  }

  /** E.g. the comm now follows another notebook: its kernel may differ. */
  private _onLabelChanged(): void {
    this._health.refresh();
    this._connectionChanged.emit();
  }

  private _onEndpointChanged(): void {
    if (!this._connect()) {
      // Same endpoint, but the conversation's own name may have changed.
      this._connectionChanged.emit();
    }
  }

  /** A conversation belongs to the endpoint its messages go to. */
  private _onEntryAdded(_: ChatModel, entry: ChatEntry): void {
    if (entry.kind === 'user') {
      this.model.endpointName = this.endpoint.name;
    }
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

  private _onStatus(model: ChatModel, status: ChatStatus): void {
    if (status !== 'running') {
      this._retiring.forEach(transport => transport.dispose());
      this._retiring.clear();
      // A failed turn may mean the agent went away: its health says so now,
      // not at the next periodic check.
      const last = model.entries[model.entries.length - 1];
      if (last?.kind === 'turn' && last.state.error) {
        this._health.refresh();
      }
    }
  }

  private _current: ConversationSession;
  private readonly _currentChanged = new Signal<this, ICurrentChange>(this);
  private readonly _modelChanged = new Signal<this, ChatModel>(this);
  private _settings: IPanelSettings = DEFAULT_SETTINGS;
  private _problem: string | null = null;
  private _connected: IEndpointSettings | null = null;
  private _isDisposed = false;
  private _itemActions: IItemAction[] = [];
  private _changeUndo: IChangeUndo | null = null;
  private readonly _loadProbe: (() => Promise<IConnectionProbe>) | null;
  private readonly _interrupts: InterruptHandlers;
  private readonly _trans: TranslationBundle;
  private readonly _health = new HealthMonitor();
  private readonly _factories = new Map<TransportKind, TransportFactory>();
  private readonly _retiring = new Set<IAgentTransport>();
  private readonly _settingsChanged = new Signal<this, IPanelSettings>(this);
  private readonly _connectionChanged = new Signal<this, void>(this);
  private _testing = false;
  private readonly _connectionTest = new Signal<this, IConnectionTestEvent>(
    this
  );
}
