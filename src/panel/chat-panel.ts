import { Notification } from '@jupyterlab/apputils';
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { TranslationBundle } from '@jupyterlab/translation';
import {
  addIcon,
  historyIcon,
  refreshIcon,
  SidePanel,
  ToolbarButton
} from '@jupyterlab/ui-components';
import type { CommandRegistry } from '@lumino/commands';
import { Panel, Widget } from '@lumino/widgets';
import type { AgentPanelService } from '../model/agent-panel-service';
import type { ConversationLibrary } from '../model/library/library';
import type {
  ConversationSession,
  ICurrentChange
} from '../model/conversation/session';
import {
  ConversationDraft,
  MemoryDraftStore
} from '../model/persistence/drafts';
import type { IUnloadStore } from '../model/persistence/saver';
import { errorMessage } from '../wire/json';
import { agentOutputRendermime } from './common/agent-rendermime';
import { formatTokens } from './common/format';
import type { AutoScroller } from './transcript/autoscroll';
import type { ITurnViewContext } from './transcript/turn-view';
import { CommandIDs } from '../commands';
import { REVEAL_CELL_COMMAND } from '../contracts/extension-points';
import { TurnAnnouncer } from './transcript/announcer';
import { Composer } from './composer/composer';
import { ContextChipsView } from './composer/context-chips';
import { MentionInput } from './composer/mention-input';
import { ConnectionReportView } from './header/connection-report';
import { EndpointPicker } from './header/endpoint-picker';
import { HealthIndicator } from './header/health-indicator';
import { ModelPicker } from './composer/model-picker';
import { PlanView } from './plan/plan-view';
import { QueueView } from './composer/queue-view';
import { ChangeReviewsView } from './review/change-review-view';
import { RewindView } from './review/rewind-card';
import type { ReadFile } from './review/file-change-view';
import type { CodeHighlighter } from './review/line-diff';
import { DemoAgentHint } from './transcript/demo-agent-hint';
import { SuggestedPrompts } from './transcript/suggested-prompts';
import { TranscriptView } from './transcript/transcript';
import { WorkingIndicator } from './composer/working-indicator';
import { ConversationListView } from './library/conversation-list';
import { ConversationNotice } from './library/conversation-notice';

export interface IChatPanelOptions {
  service: AgentPanelService;
  library: ConversationLibrary;
  rendermime: IRenderMimeRegistry;
  trans: TranslationBundle;
  commands: CommandRegistry;
  /** Reads a file a review's diff needs (docs/protocol.md §16.6); none: no diff. */
  readFile?: ReadFile;
  /** Colours the diffs of reviews by their language; none: plain text. */
  highlight?: CodeHighlighter;
  /**
   * Where the message box's unsent drafts are kept, per conversation (the
   * plugin gives the tab's sessionStorage); none: while the page lives.
   */
  drafts?: IUnloadStore;
}

/**
 * The side panel: toolbar (endpoint picker, address, health,
 * test connection, new conversation), the last connection test's report, the
 * agent's plan pinned on top, the transcript with "Jump to latest", the
 * working indicator, the message queue, the context chips and the composer
 * (with the model picker), around one chat model. Views emit intents; the model acts on them.
 */
export class ChatPanel extends SidePanel {
  constructor({
    service,
    library,
    rendermime,
    trans,
    commands,
    readFile,
    highlight,
    drafts
  }: IChatPanelOptions) {
    super({ content: new Panel() });
    this._service = service;
    this._library = library;
    this._bundle = trans;
    this._drafts = drafts ?? new MemoryDraftStore();
    // Shown inside the sidebar's `AgentSidebar`, which has the id and the tab.
    this.addClass('jp-AgentPanel');

    this.toolbar.addItem('endpoint-picker', new EndpointPicker(service, trans));

    this._endpointLabel = new Widget({ node: document.createElement('span') });
    this._endpointLabel.addClass('jp-AgentPanel-endpoint');
    // Toolbar items are flex boxes, where no ellipsis shows: the text gets its own box.
    this._endpointText.className = 'jp-AgentPanel-endpointText';
    this._endpointLabel.node.append(this._endpointText);
    this.toolbar.addItem('endpoint', this._endpointLabel);
    this.toolbar.addItem('health', new HealthIndicator(service.health, trans));
    this.toolbar.addItem(
      'test-connection',
      new ToolbarButton({
        icon: refreshIcon,
        tooltip: trans.__(
          'Test the connection to this endpoint and say what is wrong, if anything'
        ),
        className: 'jp-AgentPanel-testConnection',
        onClick: () => void commands.execute(CommandIDs.testConnection)
      })
    );
    this._listButton = new ToolbarButton({
      icon: historyIcon,
      tooltip: trans.__('Conversations: open, rename or delete one'),
      className: 'jp-AgentPanel-conversationsButton',
      pressedTooltip: trans.__('Back to the conversation'),
      onClick: () => this.toggleConversations()
    });
    this.toolbar.addItem('conversations', this._listButton);
    this.toolbar.addItem(
      'new-conversation',
      new ToolbarButton({
        icon: addIcon,
        tooltip: trans.__('Start a new conversation (the current one is kept)'),
        className: 'jp-AgentPanel-newChat',
        onClick: () => {
          library.create();
          this.toggleConversations(false);
        }
      })
    );

    this._turnContext = {
      // Agent output is untrusted: nothing in it may load or submit elsewhere.
      rendermime: agentOutputRendermime(rendermime, trans),
      trans,
      commands,
      itemActions: () => service.itemActions,
      settings: () => service.settings,
      onDecisions: decisions =>
        this._run(() => service.model.answer(decisions)),
      onResponse: (card, response) =>
        this._run(() => service.model.respond(card, response)),
      onRetry: () => this._run(() => service.model.retry()),
      branches: {
        refusal: key => service.model.forkRefusal(key),
        siblings: key => service.model.siblings(key),
        edit: (key, text) => this._run(() => service.model.edit(key, text)),
        show: key => this._run(() => service.model.showBranch(key)),
        regenerateRefusal: key => service.model.regenerateRefusal(key),
        regenerate: key => this._run(() => service.model.regenerate(key))
      },
      onRewind: turn => void this.rewindFrom(turn),
      revealCell: cell =>
        void commands.execute(REVEAL_CELL_COMMAND, { ...cell }),
      showReview: () => this._changeReviews.showFirst(),
      undo: () => service.changeUndo,
      review: {
        answeredByPlugin: action => service.answersInterrupt(action),
        isAlwaysAllowed: action => service.isAlwaysAllowed(action),
        alwaysAllow: tool => service.changeReviews.setAlwaysAllowed(tool, true),
        readFile,
        highlight
      }
    };
    this._list = new ConversationListView(library, trans, () =>
      this.toggleConversations(false)
    );
    this._list.hide();
    this._jump = this._jumpButton();
    this._transcriptArea.addClass('jp-AgentPanel-transcriptArea');
    // Each conversation's own views go in these; the layout sees only the views.
    for (const slot of this._slots) {
      slot.addClass('jp-AgentPanel-slot');
    }
    this._transcriptArea.addWidget(this._jump);

    this._composer = new Composer(trans);
    // The model goes with the message: beside Send, where the header has no room for it.
    this._composer.setAccessory(new ModelPicker(service.modelChoice, trans));
    this._composer.sendRequested.connect(this._onSend, this);
    this._composer.stopRequested.connect(this._onStop, this);
    this._composer.draftChanged.connect(this._onDraft, this);
    this._mentions = new MentionInput(
      this._composer.node,
      this._composer.input,
      service.composerContext,
      trans
    );

    this.content.addClass('jp-AgentPanel-content');
    this.content.addWidget(this._list);
    this.content.addWidget(new ConnectionReportView(service, trans));
    this.content.addWidget(
      new PlanView(service.plan, {
        commands,
        itemActions: () => service.itemActions,
        trans
      })
    );
    this.content.addWidget(this._noticeSlot);
    this.content.addWidget(this._transcriptArea);
    this._changeReviews = new ChangeReviewsView(
      service.changeReviews,
      trans,
      highlight
    );
    this.content.addWidget(this._changeReviews);
    this._rewind = new RewindView(service.notebookRewinds, trans, highlight);
    this.content.addWidget(this._rewind);
    this.content.addWidget(this._workingSlot);
    this.content.addWidget(this._queueSlot);
    this._chips = new ContextChipsView(service.composerContext, trans);
    this.content.addWidget(this._chips);
    this.content.addWidget(this._composer);
    this.content.addWidget(this._announcerSlot);

    this._bind(service.current);
    service.currentChanged.connect(this._onCurrentChanged, this);
    service.connectionChanged.connect(this._onConnection, this);
    service.settingsChanged.connect(this._onConnection, this);
    this._onConnection();
  }

  /** Show the list of conversations instead of the transcript (`show`), or toggle it. */
  toggleConversations(show = this._list.isHidden): void {
    this._list.setHidden(!show);
    this._transcriptArea.setHidden(show);
    this._listButton.pressed = show;
    if (show) {
      this._list.node.querySelector('input')?.focus();
    }
  }

  get conversations(): ConversationListView {
    return this._list;
  }

  get library(): ConversationLibrary {
    return this._library;
  }

  get composer(): Composer {
    return this._composer;
  }

  get transcript(): TranscriptView {
    return this._transcript;
  }

  /** Show the rewind card of turn `turnKey` and the later ones (docs/protocol.md §12.11). */
  async rewindFrom(turnKey: string): Promise<void> {
    try {
      await this._service.notebookRewinds.rewindFrom(turnKey);
      this._rewind.showCard();
    } catch (error) {
      Notification.warning(errorMessage(error), { autoClose: 5000 });
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._unbind();
    this._service.currentChanged.disconnect(this._onCurrentChanged, this);
    this._service.connectionChanged.disconnect(this._onConnection, this);
    this._service.settingsChanged.disconnect(this._onConnection, this);
    this._jump.node.removeEventListener('click', this);
    this._mentions.dispose();
    super.dispose();
  }

  handleEvent(event: Event): void {
    if (event.type === 'click' && event.currentTarget === this._jump.node) {
      this._transcript.scroller.jumpToLatest();
    }
  }

  /** Another conversation is shown: its views replace the previous one's. */
  private _onCurrentChanged(
    _: AgentPanelService,
    change: ICurrentChange
  ): void {
    this._unbind();
    this._bind(change.current);
    this._onConnection();
  }

  /**
   * Build the views of one conversation: transcript, working, queue,
   * notice, and while it is empty the demo agent's hint and the prompts
   * its endpoint suggests.
   */
  private _bind(session: ConversationSession): void {
    const model = session.model;
    const trans = this._bundle;
    this._transcript = new TranscriptView(model, this._turnContext);
    this._transcript.scroller.followingChanged.connect(this._onFollowing, this);
    this._jump.setHidden(this._transcript.scroller.following);
    this._transcriptArea.insertWidget(0, this._transcript);
    this._workingSlot.addWidget(new WorkingIndicator(model, trans));
    this._queueSlot.addWidget(new QueueView(session.queue, trans));
    this._noticeSlot.addWidget(
      new ConversationNotice(session, this._library, trans)
    );
    this._noticeSlot.addWidget(
      new DemoAgentHint(model, this._service.modelChoice, trans)
    );
    const prompts = new SuggestedPrompts(model, this._service.health, trans);
    prompts.chosen.connect(this._onPrompt, this);
    this._noticeSlot.addWidget(prompts);
    this._announcer = new TurnAnnouncer(model, trans);
    this._announcerSlot.addWidget(new Widget({ node: this._announcer.node }));
    model.statusChanged.connect(this._updateComposer, this);
    model.cleared.connect(this._updateComposer, this);
    this._bound = session;
    this._draft = new ConversationDraft(session, this._drafts);
    this._composer.setDraft(this._draft.read());
  }

  private _unbind(): void {
    const session = this._bound;
    if (!session) {
      return;
    }
    // What the box holds now, even what no input event reported (an @ mention completed).
    this._draft.write(this._composer.input.value);
    this._bound = null;
    session.model.statusChanged.disconnect(this._updateComposer, this);
    session.model.cleared.disconnect(this._updateComposer, this);
    this._transcript.scroller.followingChanged.disconnect(
      this._onFollowing,
      this
    );
    this._transcript.dispose();
    this._announcer.dispose();
    for (const slot of this._slots) {
      [...slot.widgets].forEach(widget => widget.dispose());
    }
  }

  /** Show where the endpoint is (the picker names it), or why it cannot be used. */
  private _onConnection(): void {
    const { problem, model, settings } = this._service;
    const text = problem ?? model.transport?.label ?? '';
    // JupyterLab's toolbar recomputes its focus order (a forced layout) on
    // any change inside it: a conversation's first Send reconnects, and
    // would write the same text again.
    if (this._endpointText.textContent !== text) {
      this._endpointText.textContent = text;
    }
    this._endpointLabel.toggleClass('jp-mod-error', problem !== null);
    this._composer.sendKey = settings.sendKey;
    this._updateComposer();
  }

  /** The endpoint, and the tokens the conversation used when it knows them. */
  private _updateTitle(): void {
    const { endpoint, problem, model } = this._service;
    const text = problem ?? model.transport?.label ?? '';
    const usage = model.tokenUsage;
    this._endpointLabel.node.title = usage
      ? this._bundle.__(
          '%1 · %2\nThis conversation: %3',
          endpoint.name,
          text,
          formatTokens(usage, this._bundle)
        )
      : `${endpoint.name} · ${text}`;
  }

  /** Why the composer is locked, if it is. */
  private _updateComposer(): void {
    this._updateTitle();
    const status = this._service.model.status;
    const problem = this._service.problem;
    this._composer.setRunning(status === 'running');
    const reviewing = status === 'awaiting-decision';
    this._composer.setLocked(
      reviewing
        ? this._bundle.__('Waiting for your review above.')
        : problem !== null && status === 'idle'
          ? this._bundle.__('No agent to talk to: %1', problem)
          : null
    );
    // The next message's context matters again once the review is answered:
    // meanwhile the conversation keeps the room.
    this._chips.setHidden(reviewing);
  }

  private _onSend(_: Composer, text: string): void {
    if (this._send(text)) {
      this._composer.clear();
      this._draft.write('');
    }
  }

  /** A suggested prompt goes as if typed and sent; what the box holds stays. */
  private _onPrompt(_: SuggestedPrompts, text: string): void {
    if (this._send(text)) {
      // Kept as the conversation's own draft now that it has a message.
      this._draft.write(this._composer.input.value);
    }
  }

  private _onDraft(_: Composer, text: string): void {
    this._draft.write(text);
  }

  /**
   * Send, or queue while the agent works; false when the model refused.
   * The context is captured now, as the chips show it, and goes with the
   * message even when queued.
   */
  private _send(text: string): boolean {
    const context = this._service.composerContext;
    let sent = false;
    const done = this._run(() => {
      sent = this._service.queue.submit(text, context.current()) === 'sent';
    });
    if (done) {
      context.reset();
      // While following, the new turn scrolls into view at the next frame;
      // a jump now would force a layout in the middle of sending.
      if (sent && !this._transcript.scroller.following) {
        this._transcript.scroller.jumpToLatest();
      }
    }
    return done;
  }

  private _onStop(): void {
    this._service.model.stop();
  }

  private _jumpButton(): Widget {
    const node = document.createElement('button');
    node.type = 'button';
    node.className = 'jp-Button jp-mod-styled jp-AgentPanel-jump';
    node.textContent = this._bundle.__('Jump to latest ↓');
    const widget = new Widget({ node });
    widget.hide();
    node.addEventListener('click', this);
    return widget;
  }

  private _onFollowing(_: AutoScroller, following: boolean): void {
    this._jump.setHidden(following);
  }

  /** Run a model action; a refusal is shown to the user, not thrown. */
  private _run(action: () => void): boolean {
    try {
      action();
      return true;
    } catch (error) {
      Notification.warning(errorMessage(error), { autoClose: 5000 });
      return false;
    }
  }

  private readonly _service: AgentPanelService;
  private readonly _library: ConversationLibrary;
  private readonly _bundle: TranslationBundle;
  private readonly _endpointLabel: Widget;
  private readonly _endpointText = document.createElement('span');
  private readonly _turnContext: ITurnViewContext;
  private readonly _changeReviews: ChangeReviewsView;
  private readonly _rewind: RewindView;
  private readonly _chips: ContextChipsView;
  private readonly _list: ConversationListView;
  private readonly _listButton: ToolbarButton;
  private readonly _transcriptArea = new Panel();
  private readonly _noticeSlot = new Panel();
  private readonly _workingSlot = new Panel();
  private readonly _queueSlot = new Panel();
  private readonly _announcerSlot = new Panel();
  private readonly _slots = [
    this._noticeSlot,
    this._workingSlot,
    this._queueSlot,
    this._announcerSlot
  ];
  private _bound: ConversationSession | null = null;
  private readonly _drafts: IUnloadStore;
  /** The draft of the conversation shown. */
  private _draft!: ConversationDraft;
  private _transcript!: TranscriptView;
  private _announcer!: TurnAnnouncer;
  private readonly _jump: Widget;
  private readonly _composer: Composer;
  private readonly _mentions: MentionInput;
}
