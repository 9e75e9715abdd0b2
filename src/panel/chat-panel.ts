import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { TranslationBundle } from '@jupyterlab/translation';
import { SidePanel, type ToolbarButton } from '@jupyterlab/ui-components';
import type { CommandRegistry } from '@lumino/commands';
import { Panel } from '@lumino/widgets';
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
import { Composer } from './composer/composer';
import { ContextChipsView } from './composer/context-chips';
import { MentionInput } from './composer/mention-input';
import { ModelPicker } from './composer/model-picker';
import { ConversationViews } from './conversation-views';
import { ConnectionReportView } from './header/connection-report';
import type { EndpointLabel } from './header/endpoint-label';
import { addPanelToolbarItems } from './header/panel-toolbar';
import { ConversationListView } from './library/conversation-list';
import { PlanView } from './plan/plan-view';
import { ChangeReviewsView } from './review/change-review-view';
import type { ReadFile } from './review/file-change-view';
import type { CodeHighlighter } from './review/line-diff';
import { RewindView } from './review/rewind-card';
import type { TranscriptView } from './transcript/transcript';
import { turnViewContext } from './turn-context';
import { showRefusal } from './common/refusal-notice';

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
  constructor(options: IChatPanelOptions) {
    super({ content: new Panel() });
    const { service, library, trans, commands, highlight } = options;
    this._service = service;
    this._library = library;
    this._bundle = trans;
    this._drafts = options.drafts ?? new MemoryDraftStore();
    // Shown inside the sidebar's `AgentSidebar`, which has the id and the tab.
    this.addClass('jp-AgentPanel');

    const toolbar = addPanelToolbarItems(this.toolbar, {
      service,
      trans,
      commands,
      onConversations: () => this.toggleConversations(),
      onNewConversation: () => {
        library.create();
        this.toggleConversations(false);
      }
    });
    this._endpoint = toolbar.endpoint;
    this._listButton = toolbar.conversations;
    this._list = new ConversationListView(library, trans, () =>
      this.toggleConversations(false)
    );
    this._list.hide();
    this._views = new ConversationViews({
      service,
      library,
      turnContext: turnViewContext({
        ...options,
        run: action => this._run(action),
        rewindFrom: turn => void this.rewindFrom(turn),
        showReview: () => this._changeReviews.showFirst()
      }),
      trans,
      onPrompt: text => this._onPrompt(text)
    });
    this._composer = this._createComposer();
    this._mentions = new MentionInput(
      this._composer.node,
      this._composer.input,
      service.composerContext,
      trans
    );
    this._changeReviews = new ChangeReviewsView(
      service.changeReviews,
      trans,
      highlight
    );
    this._rewind = new RewindView(service.notebookRewinds, trans, highlight);
    this._chips = new ContextChipsView(service.composerContext, trans);
    this._layOut(commands);

    this._bind(service.current);
    service.currentChanged.connect(this._onCurrentChanged, this);
    service.connectionChanged.connect(this._onConnection, this);
    service.settingsChanged.connect(this._onConnection, this);
    this._onConnection();
  }

  /** Show the list of conversations instead of the transcript (`show`), or toggle it. */
  toggleConversations(show = this._list.isHidden): void {
    this._list.setHidden(!show);
    this._views.transcriptArea.setHidden(show);
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
    return this._views.transcript;
  }

  /** Show the rewind card of turn `turnKey` and the later ones (docs/protocol.md §12.11). */
  async rewindFrom(turnKey: string): Promise<void> {
    try {
      await this._service.notebookRewinds.rewindFrom(turnKey);
      this._rewind.showCard();
    } catch (error) {
      showRefusal(error);
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
    this._views.dispose();
    this._mentions.dispose();
    super.dispose();
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

  /** Show the views and the draft of `session`. */
  private _bind(session: ConversationSession): void {
    const model = session.model;
    this._views.show(session);
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
    this._views.clear();
  }

  /** Show where the endpoint is (the picker names it), or why it cannot be used. */
  private _onConnection(): void {
    this._endpoint.showConnection();
    this._composer.sendKey = this._service.settings.sendKey;
    this._updateComposer();
  }

  /** Why the composer is locked, if it is. */
  private _updateComposer(): void {
    this._endpoint.showTitle();
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
  private _onPrompt(text: string): void {
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
      const scroller = this._views.transcript.scroller;
      if (sent && !scroller.following) {
        scroller.jumpToLatest();
      }
    }
    return done;
  }

  private _onStop(): void {
    this._service.model.stop();
  }

  /** The message box, with the model picker beside Send. */
  private _createComposer(): Composer {
    const composer = new Composer(this._bundle);
    // The model goes with the message: beside Send, where the header has no room for it.
    composer.setAccessory(
      new ModelPicker(this._service.modelChoice, this._bundle)
    );
    composer.sendRequested.connect(this._onSend, this);
    composer.stopRequested.connect(this._onStop, this);
    composer.draftChanged.connect(this._onDraft, this);
    return composer;
  }

  /**
   * Put the views in their order, top to bottom; each conversation's own
   * views go in the slots, so the layout sees only the slots.
   */
  private _layOut(commands: CommandRegistry): void {
    const service = this._service;
    const trans = this._bundle;
    const views = this._views;
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
    this.content.addWidget(views.noticeSlot);
    this.content.addWidget(views.transcriptArea);
    this.content.addWidget(this._changeReviews);
    this.content.addWidget(this._rewind);
    this.content.addWidget(views.workingSlot);
    this.content.addWidget(views.queueSlot);
    this.content.addWidget(this._chips);
    this.content.addWidget(this._composer);
    this.content.addWidget(views.announcerSlot);
  }

  /** Run a model action; a refusal is shown to the user, not thrown. */
  private _run(action: () => void): boolean {
    try {
      action();
      return true;
    } catch (error) {
      showRefusal(error);
      return false;
    }
  }

  private readonly _service: AgentPanelService;
  private readonly _library: ConversationLibrary;
  private readonly _bundle: TranslationBundle;
  private readonly _endpoint: EndpointLabel;
  private readonly _changeReviews: ChangeReviewsView;
  private readonly _rewind: RewindView;
  private readonly _chips: ContextChipsView;
  private readonly _list: ConversationListView;
  private readonly _listButton: ToolbarButton;
  private readonly _views: ConversationViews;
  private _bound: ConversationSession | null = null;
  private readonly _drafts: IUnloadStore;
  /** The draft of the conversation shown. */
  private _draft!: ConversationDraft;
  private readonly _composer: Composer;
  private readonly _mentions: MentionInput;
}
