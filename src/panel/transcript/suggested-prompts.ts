import type { TranslationBundle } from '@jupyterlab/translation';
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';
import {
  type HealthMonitor,
  type IHealthStatus,
  samePrompts
} from '../../model/connection/health-monitor';
import type { ChatModel } from '../../model/conversation/chat-model';

/**
 * The prompts the endpoint suggests (its health answer's `prompts`,
 * docs/protocol.md §6.1), as buttons above an empty conversation; a click
 * asks to send that prompt. Shown while the endpoint is healthy, until the
 * conversation has a message or chooses a model of its own (the prompts are
 * its default agent's). An endpoint that suggests none shows nothing.
 */
export class SuggestedPrompts extends Widget {
  constructor(
    private readonly _model: ChatModel,
    private readonly _health: HealthMonitor,
    private readonly _trans: TranslationBundle
  ) {
    super();
    this.addClass('jp-AgentPanel-prompts');
    this.node.setAttribute('role', 'group');
    this.node.setAttribute('aria-label', _trans.__('Suggested messages'));
    this.node.addEventListener('click', this);
    _model.entryAdded.connect(this._render, this);
    _model.cleared.connect(this._render, this);
    _model.chosenModelChanged.connect(this._render, this);
    _health.changed.connect(this._render, this);
    this._render();
  }

  /** The user picked this prompt. */
  get chosen(): ISignal<this, string> {
    return this._chosen;
  }

  /** The prompts shown as buttons. */
  get prompts(): readonly string[] {
    return this._prompts;
  }

  handleEvent(event: Event): void {
    const button = (event.target as Element).closest<HTMLButtonElement>(
      'button[data-prompt]'
    );
    if (event.type === 'click' && button && !this.isHidden) {
      this._chosen.emit(button.dataset.prompt!);
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.node.removeEventListener('click', this);
    this._model.entryAdded.disconnect(this._render, this);
    this._model.cleared.disconnect(this._render, this);
    this._model.chosenModelChanged.disconnect(this._render, this);
    this._health.changed.disconnect(this._render, this);
    Signal.clearData(this);
    super.dispose();
  }

  private _render(): void {
    const status: IHealthStatus = this._health.status;
    const prompts = status.state === 'healthy' ? (status.prompts ?? []) : [];
    if (!samePrompts(prompts, this._prompts)) {
      this._prompts = prompts;
      this.node.replaceChildren(...prompts.map(prompt => this._button(prompt)));
    }
    this.setHidden(
      prompts.length === 0 ||
        this._model.entries.length > 0 ||
        this._model.chosenModel !== null
    );
  }

  private _button(prompt: string): HTMLButtonElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'jp-AgentPanel-prompt';
    button.dataset.prompt = prompt;
    button.textContent = prompt;
    button.title = this._trans.__('Send this message to the agent');
    return button;
  }

  private _prompts: readonly string[] = [];
  private readonly _chosen = new Signal<this, string>(this);
}
