import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import { Panel, Widget } from '@lumino/widgets';
import type { AgentPanelService } from '../model/agent-panel-service';
import type { ConversationLibrary } from '../model/library/library';
import type { ConversationSession } from '../model/conversation/session';
import { QueueView } from './composer/queue-view';
import { WorkingIndicator } from './composer/working-indicator';
import { ConversationNotice } from './library/conversation-notice';
import { TurnAnnouncer } from './transcript/announcer';
import type { AutoScroller } from './transcript/autoscroll';
import { DemoAgentHint } from './transcript/demo-agent-hint';
import { SuggestedPrompts } from './transcript/suggested-prompts';
import { TranscriptView } from './transcript/transcript';
import type { ITurnViewContext } from './transcript/turn-view';

export interface IConversationViewsOptions {
  service: AgentPanelService;
  library: ConversationLibrary;
  turnContext: ITurnViewContext;
  trans: TranslationBundle;
  /** The user chose a suggested prompt. */
  onPrompt(text: string): void;
}

/**
 * The views of the conversation shown, each in its slot of the panel: the
 * transcript with "Jump to latest", the notice, the working indicator, the
 * queue and the announcer, and while it is empty the demo agent's hint and
 * the prompts its endpoint suggests. Another conversation shown gets views
 * of its own; the slots stay.
 */
export class ConversationViews implements IDisposable {
  constructor(private readonly _options: IConversationViewsOptions) {
    this._jump = this._jumpButton();
    this.transcriptArea.addClass('jp-AgentPanel-transcriptArea');
    for (const slot of this._slots) {
      slot.addClass('jp-AgentPanel-slot');
    }
    this.transcriptArea.addWidget(this._jump);
  }

  /** The transcript and "Jump to latest". */
  readonly transcriptArea = new Panel();
  /** Above the transcript: the conversation's notice, hint and prompts. */
  readonly noticeSlot = new Panel();
  readonly workingSlot = new Panel();
  readonly queueSlot = new Panel();
  /** The screen reader's announcements of finished turns. */
  readonly announcerSlot = new Panel();

  /** The transcript of the conversation shown. */
  get transcript(): TranscriptView {
    return this._transcript!;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Build the views of `session`. */
  show(session: ConversationSession): void {
    const { service, library, turnContext, trans } = this._options;
    const model = session.model;
    this._transcript = new TranscriptView(model, turnContext);
    this._transcript.scroller.followingChanged.connect(this._onFollowing, this);
    this._jump.setHidden(this._transcript.scroller.following);
    this.transcriptArea.insertWidget(0, this._transcript);
    this.workingSlot.addWidget(new WorkingIndicator(model, trans));
    this.queueSlot.addWidget(new QueueView(session.queue, trans));
    this.noticeSlot.addWidget(new ConversationNotice(session, library, trans));
    this.noticeSlot.addWidget(
      new DemoAgentHint(model, service.modelChoice, trans)
    );
    const prompts = new SuggestedPrompts(model, service.health, trans);
    prompts.chosen.connect(this._onPrompt, this);
    this.noticeSlot.addWidget(prompts);
    this._announcer = new TurnAnnouncer(model, trans);
    this.announcerSlot.addWidget(new Widget({ node: this._announcer.node }));
  }

  /** Dispose of the views of the conversation shown, if any. */
  clear(): void {
    const transcript = this._transcript;
    if (!transcript) {
      return;
    }
    this._transcript = null;
    transcript.scroller.followingChanged.disconnect(this._onFollowing, this);
    transcript.dispose();
    this._announcer?.dispose();
    this._announcer = null;
    for (const slot of this._slots) {
      [...slot.widgets].forEach(widget => widget.dispose());
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this.clear();
    this._jump.node.removeEventListener('click', this);
  }

  handleEvent(event: Event): void {
    if (event.type === 'click' && event.currentTarget === this._jump.node) {
      this._transcript?.scroller.jumpToLatest();
    }
  }

  private _jumpButton(): Widget {
    const node = document.createElement('button');
    node.type = 'button';
    node.className = 'jp-Button jp-mod-styled jp-AgentPanel-jump';
    node.textContent = this._options.trans.__('Jump to latest ↓');
    const widget = new Widget({ node });
    widget.hide();
    node.addEventListener('click', this);
    return widget;
  }

  private _onFollowing(_: AutoScroller, following: boolean): void {
    this._jump.setHidden(following);
  }

  private _onPrompt(_: SuggestedPrompts, text: string): void {
    this._options.onPrompt(text);
  }

  private readonly _jump: Widget;
  private readonly _slots = [
    this.noticeSlot,
    this.workingSlot,
    this.queueSlot,
    this.announcerSlot
  ];
  private _transcript: TranscriptView | null = null;
  private _announcer: TurnAnnouncer | null = null;
  private _isDisposed = false;
}
