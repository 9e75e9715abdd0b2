import type { TranslationBundle } from '@jupyterlab/translation';
import type { Message } from '@lumino/messaging';
import { BoxPanel, Widget } from '@lumino/widgets';
import { agentIcon } from '../icons';

/** The id of the side panel in the shell (`app.shell.activateById`). */
export const SIDEBAR_ID = 'jp-agent-panel';

/**
 * The agent panel's place in the right sidebar: its tab (icon, caption) is
 * there from JupyterLab's start, what it shows is loaded the first time it
 * is shown (`shown` is called then), so nothing of the panel's views is
 * fetched for a user who never opens it.
 */
export class AgentSidebar extends BoxPanel {
  constructor(
    private readonly _trans: TranslationBundle,
    private readonly _shown: () => void
  ) {
    super();
    this.id = SIDEBAR_ID;
    this.addClass('jp-AgentPanel-sidebar');
    this.title.icon = agentIcon;
    this.title.caption = _trans.__('Agent');
    this._status.className = 'jp-AgentPanel-sidebarStatus';
    this._status.textContent = _trans.__('Loading the agent panel…');
    this._placeholder = new Widget({ node: this._status });
    this.addWidget(this._placeholder);
  }

  /** Show the loaded panel in place of the loading note. */
  setContent(content: Widget): void {
    this._placeholder.dispose();
    this.addWidget(content);
  }

  /** The panel could not be loaded: say so where it would be. */
  showFailure(reason: string): void {
    this._status.textContent = this._trans.__(
      'The agent panel could not be loaded: %1',
      reason
    );
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    this._shown();
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    if (this.isVisible) {
      this._shown();
    }
  }

  private readonly _status = document.createElement('p');
  private readonly _placeholder: Widget;
}
