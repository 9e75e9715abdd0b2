import type { TranslationBundle } from '@jupyterlab/translation';
import { DisposableDelegate, IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import {
  DEFAULT_SETTINGS,
  IEndpointSettings,
  IPanelSettings,
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
import type { IActionRequest } from '../wire/types';
import type { ChatModel } from './conversation/chat-model';
import type { IBranchMove } from './conversation/chat/branch-moves';
import type { ChatEntry } from './conversation/chat/chat-entries';
import type { ChatStatus } from './conversation/chat/chat-status';
import type { IConnectionReport } from './connection/connection-check';
import type {
  ClientToolRegistry,
  IClientTool
} from './conversation/chat/client-tools';
import { ChangeReviews } from './conversation/change-reviews';
import {
  alwaysAllowedReviews,
  isAlwaysAllowed
} from './conversation/always-allowed';
import { ComposerContext } from './conversation/composer-context';
import { InterruptHandlers } from './conversation/interrupt-handlers';
import type { HealthMonitor } from './connection/health-monitor';
import {
  type IConnectionTestEvent,
  TransportConnection
} from './connection/transport-connection';
import type { MessageQueue } from './conversation/message-queue';
import { ModelChoice } from './conversation/model-choice';
import { PlanTracker } from './conversation/plan';
import { NotebookRewinds } from './conversation/rewinds';
import {
  ConversationSession,
  type ICurrentChange
} from './conversation/session';
import { panelStrings } from '../contracts/translation';

export interface IAgentPanelServiceOptions {
  /**
   * What "Test connection" uses for HTTP endpoints and the server's view;
   * loaded when a test first runs.
   */
  loadProbe?: () => Promise<IConnectionProbe>;
  trans?: TranslationBundle;
}

/**
 * The application service behind `IAgentPanel`: the conversation shown and
 * the parts that follow it (its transport, plan, reviews, rewinds, model
 * choice), the settings, and what other plugins contribute (transports,
 * client tools, item actions, interrupt handlers, change undo).
 *
 * Each conversation belongs to an endpoint (`ChatModel.endpointName`, saved
 * with it; `TransportConnection`). Settings apply at once.
 */
export class AgentPanelService implements IAgentPanel, IDisposable {
  constructor(model: ChatModel, options: IAgentPanelServiceOptions = {}) {
    this._trans = options.trans ?? panelStrings();
    this._connection = new TransportConnection({
      shown: () => this.model,
      settings: () => this._settings,
      changed: () => this._connectionChanged.emit(),
      tested: event => this._connectionTest.emit(event),
      loadProbe: options.loadProbe ?? null,
      trans: this._trans
    });
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
   * Show `session` instead of the current conversation (the previous one
   * keeps its transport while its turn runs). Plugins that follow the
   * panel's conversation (`model`, `plan`, `changeReviews`) follow it.
   */
  show(session: ConversationSession): void {
    const previous = this._current;
    if (session === previous || this._isDisposed) {
      return;
    }
    this._unbindModel(previous.model);
    this._connection.leave(previous.model);
    this._current = session;
    this._bindModel(session.model);
    this.plan.follow(session.model);
    this._interrupts.follow(session.model);
    this._connection.arrive();
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
    return this._connection.endpoint;
  }

  get defaultEndpoint(): IEndpointSettings {
    return this._connection.defaultEndpoint;
  }

  /** The conversation's own endpoint when the settings no longer have it, else null. */
  get missingEndpoint(): string | null {
    return this._connection.missingEndpoint;
  }

  /** Why the endpoint cannot be used, or null. */
  get problem(): string | null {
    return this._connection.problem;
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
    return this._connection.testing;
  }

  /** The health of the current endpoint; polled once `health.start()` runs. */
  get health(): HealthMonitor {
    return this._connection.health;
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
    this._connection.connect();
  }

  /** Why the conversation cannot change endpoint now, or null. */
  get switchBlocked(): string | null {
    return this._connection.switchBlocked;
  }

  /** Move the conversation to the endpoint `name`; throws why it cannot. */
  selectEndpoint(name: string): void {
    this._connection.selectEndpoint(name);
  }

  /** Check the current endpoint once and say what is wrong, if anything. */
  testConnection(): Promise<IConnectionReport> {
    return this._connection.testConnection();
  }

  registerTransport(
    kind: TransportKind,
    factory: TransportFactory
  ): IDisposable {
    return this._connection.register(kind, factory);
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
    this._connection.dispose();
    this._current.dispose();
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

  private _onEndpointChanged(): void {
    this._connection.endpointChanged();
  }

  /** A conversation belongs to the endpoint its messages go to. */
  private _onEntryAdded(_: ChatModel, entry: ChatEntry): void {
    if (entry.kind === 'user') {
      this.model.endpointName = this.endpoint.name;
    }
  }

  private _onStatus(model: ChatModel, status: ChatStatus): void {
    if (status !== 'running') {
      const last = model.entries[model.entries.length - 1];
      this._connection.turnEnded(last?.kind === 'turn' && !!last.state.error);
    }
  }

  private _current: ConversationSession;
  private readonly _currentChanged = new Signal<this, ICurrentChange>(this);
  private readonly _modelChanged = new Signal<this, ChatModel>(this);
  private _settings: IPanelSettings = DEFAULT_SETTINGS;
  private _isDisposed = false;
  private _itemActions: IItemAction[] = [];
  private _changeUndo: IChangeUndo | null = null;
  private readonly _interrupts: InterruptHandlers;
  private readonly _trans: TranslationBundle;
  private readonly _connection: TransportConnection;
  private readonly _settingsChanged = new Signal<this, IPanelSettings>(this);
  private readonly _connectionChanged = new Signal<this, void>(this);
  private readonly _connectionTest = new Signal<this, IConnectionTestEvent>(
    this
  );
}
