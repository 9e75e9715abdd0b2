import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import type { ChatModel } from '../../model/conversation/chat-model';
import type { ModelChoice } from '../../model/conversation/model-choice';

/**
 * The README's section on giving the built-in agent a model, which leads to
 * the user guide's page (docs/users/models.md).
 */
export const CONNECT_MODEL_URL =
  'https://github.com/jupyterlab-agent-panel/jupyterlab-agent-panel#connect-your-own-model';

/** Stands for the link in the translated sentence. */
const LINK = '\u0000';

/**
 * The line an empty conversation shows when its endpoint is the built-in
 * agent without a model (docs/protocol.md §16): it answers as the keyless
 * demo, and this says how to connect a model. Gone once a model is chosen
 * or the first message is sent.
 */
export class DemoAgentHint extends Widget {
  constructor(
    private readonly _model: ChatModel,
    private readonly _choice: ModelChoice,
    trans: TranslationBundle
  ) {
    super({ node: document.createElement('p') });
    this.addClass('jp-AgentPanel-demoHint');
    const link = document.createElement('a');
    link.href = CONNECT_MODEL_URL;
    link.target = '_blank';
    link.rel = 'noopener';
    link.textContent = trans.__('Connecting a model');
    const [before, after = ''] = trans
      .__(
        'This is the keyless demo agent. To use your own model, set a key or a local server — see %1.',
        LINK
      )
      .split(LINK);
    this.node.append(before, link, after);
    _model.entryAdded.connect(this._render, this);
    _model.cleared.connect(this._render, this);
    _choice.changed.connect(this._render, this);
    this._render();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._model.entryAdded.disconnect(this._render, this);
    this._model.cleared.disconnect(this._render, this);
    this._choice.changed.disconnect(this._render, this);
    super.dispose();
  }

  private _render(): void {
    const offer = this._choice.offer;
    this.setHidden(
      !offer ||
        offer.defaultModel !== null ||
        this._model.chosenModel !== null ||
        this._model.entries.length > 0
    );
  }
}
