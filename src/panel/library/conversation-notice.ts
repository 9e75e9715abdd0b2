import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import type { ConversationLibrary } from '../../model/library/library';
import type { ConversationSession } from '../../model/conversation/session';

/**
 * A line above the transcript about where the conversation is kept: the
 * agent no longer remembers it, or the server keeps no conversations (it
 * stays in this tab only). Hidden when there is nothing to say.
 */
export class ConversationNotice extends Widget {
  constructor(
    private readonly _session: ConversationSession,
    private readonly _library: ConversationLibrary,
    private readonly _trans: TranslationBundle
  ) {
    super();
    this.addClass('jp-AgentPanel-conversationNotice');
    this.node.setAttribute('role', 'status');
    _session.noticeChanged.connect(this._render, this);
    _library.changed.connect(this._render, this);
    this._render();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._session.noticeChanged.disconnect(this._render, this);
    this._library.changed.disconnect(this._render, this);
    super.dispose();
  }

  private _render(): void {
    const text = [
      this._session.notice,
      this._library.unavailable
        ? this._trans.__(
            'This Jupyter server does not keep conversations (its agent-panel routes have no store): this one stays in this browser tab only.'
          )
        : null
    ]
      .filter(Boolean)
      .join(' ');
    if (text !== this.node.textContent) {
      this.node.textContent = text;
    }
    this.setHidden(!text);
  }
}
