import { Notification } from '@jupyterlab/apputils';
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { TranslationBundle } from '@jupyterlab/translation';
import { SidePanel, ToolbarButton } from '@jupyterlab/ui-components';
import { Panel, Widget } from '@lumino/widgets';
import type { CommandRegistry } from '@lumino/commands';
import type { AgentPanelService } from '../model/agent-panel-service';
import type { ChatModel, ChatStatus } from '../model/chat-model';
import { agentIcon } from '../icons';
import { Composer } from './composer';
import { TranscriptView } from './transcript';

export interface IChatPanelOptions {
  service: AgentPanelService;
  rendermime: IRenderMimeRegistry;
  trans: TranslationBundle;
  commands: CommandRegistry;
}

/** The side panel: toolbar, transcript and composer around one chat model. */
export class ChatPanel extends SidePanel {
  constructor({ service, rendermime, trans, commands }: IChatPanelOptions) {
    super({ content: new Panel() });
    const model = service.model;
    this._service = service;
    this.id = 'jp-agent-panel';
    this.addClass('jp-AgentPanel');
    this.title.icon = agentIcon;
    this.title.caption = trans.__('Agent');
    this._model = model;
    this._bundle = trans;

    this._endpointLabel = new Widget({ node: document.createElement('span') });
    this._endpointLabel.addClass('jp-AgentPanel-endpoint');
    this.toolbar.addItem('endpoint', this._endpointLabel);
    this.toolbar.addItem(
      'new-conversation',
      new ToolbarButton({
        label: trans.__('New'),
        tooltip: trans.__('Start a new conversation'),
        className: 'jp-AgentPanel-newChat',
        onClick: () => model.newConversation()
      })
    );

    this._transcript = new TranscriptView(model, {
      rendermime,
      trans,
      commands,
      itemActions: () => service.itemActions,
      onDecisions: decisions => this._run(() => model.answer(decisions)),
      onRetry: () => this._run(() => model.retry())
    });
    this._composer = new Composer(trans);
    this._composer.sendRequested.connect(this._onSend, this);
    this._composer.stopRequested.connect(() => model.stop(), this);
    model.statusChanged.connect(this._onStatus, this);
    service.connectionChanged.connect(this._onConnection, this);
    service.settingsChanged.connect(this._onConnection, this);

    this.content.addClass('jp-AgentPanel-content');
    this.content.addWidget(this._transcript);
    this.content.addWidget(this._composer);
    this._onStatus(model, model.status);
    this._onConnection();
  }

  get composer(): Composer {
    return this._composer;
  }

  /** Show which endpoint the panel talks to, or why it cannot. */
  private _onConnection(): void {
    const { endpoint, problem, model, settings } = this._service;
    const text =
      problem ?? `${endpoint.name} · ${model.transport?.label ?? ''}`;
    this._endpointLabel.node.textContent = text;
    this._endpointLabel.node.title = text;
    this._endpointLabel.toggleClass('jp-mod-error', problem !== null);
    this._composer.sendKey = settings.sendKey;
  }

  private _onSend(_: Composer, text: string): void {
    if (this._run(() => this._model.send(text))) {
      this._composer.clear();
    }
  }

  private _onStatus(_: ChatModel, status: ChatStatus): void {
    this._composer.setRunning(status === 'running');
    this._composer.setLocked(
      status === 'awaiting-decision'
        ? this._bundle.__(
            'The agent paused for your review: answer it above to continue.'
          )
        : null
    );
  }

  /** Run a model action; a refusal is shown to the user, not thrown. */
  private _run(action: () => void): boolean {
    try {
      action();
      return true;
    } catch (error) {
      Notification.warning(
        error instanceof Error ? error.message : String(error),
        { autoClose: 5000 }
      );
      return false;
    }
  }

  private readonly _service: AgentPanelService;
  private readonly _model: ChatModel;
  private readonly _bundle: TranslationBundle;
  private readonly _endpointLabel: Widget;
  private readonly _transcript: TranscriptView;
  private readonly _composer: Composer;
}
