import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import type { AgentPanelService } from '../../model/agent-panel-service';
import { formatTokens } from '../common/format';

/**
 * The toolbar's address of the endpoint (the picker names it), or why it
 * cannot be used; its tooltip adds the tokens the conversation used.
 */
export class EndpointLabel extends Widget {
  constructor(
    private readonly _service: AgentPanelService,
    private readonly _trans: TranslationBundle
  ) {
    super({ node: document.createElement('span') });
    this.addClass('jp-AgentPanel-endpoint');
    // Toolbar items are flex boxes, where no ellipsis shows: the text gets its own box.
    this._text.className = 'jp-AgentPanel-endpointText';
    this.node.append(this._text);
  }

  /** Show where the endpoint is, or why it cannot be used. */
  showConnection(): void {
    const { problem } = this._service;
    const text = this._address();
    // JupyterLab's toolbar recomputes its focus order (a forced layout) on
    // any change inside it: a conversation's first Send reconnects, and
    // would write the same text again.
    if (this._text.textContent !== text) {
      this._text.textContent = text;
    }
    this.toggleClass('jp-mod-error', problem !== null);
  }

  /** The endpoint, and the tokens the conversation used when it knows them. */
  showTitle(): void {
    const { endpoint, model } = this._service;
    const text = this._address();
    const usage = model.tokenUsage;
    this.node.title = usage
      ? this._trans.__(
          '%1 · %2\nThis conversation: %3',
          endpoint.name,
          text,
          formatTokens(usage, this._trans)
        )
      : `${endpoint.name} · ${text}`;
  }

  private _address(): string {
    const { problem, model } = this._service;
    return problem ?? model.transport?.label ?? '';
  }

  private readonly _text = document.createElement('span');
}
