import { Clipboard } from '@jupyterlab/apputils';
import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

export interface ICollapsedHeadActions {
  /** Render the whole text. */
  showAll(): void;
  /** The whole text, for "Copy all". */
  fullText(): string;
}

/**
 * The start of a very long text that is not shown: how much, "Show all"
 * (renders it, a budget per frame) and "Copy all" (the whole text, from
 * the model, without rendering it).
 */
export class CollapsedHead extends Widget {
  constructor(
    private readonly _trans: TranslationBundle,
    private readonly _actions: ICollapsedHeadActions
  ) {
    super();
    this.addClass('jp-AgentPanel-collapsedHead');
    this._note.className = 'jp-AgentPanel-collapsedNote';
    this._showAll = button(_trans.__('Show all'), 'jp-AgentPanel-showAll');
    this._showAll.title = _trans.__(
      'Render the whole text (it may take a moment)'
    );
    this._copyAll = button(_trans.__('Copy all'), 'jp-AgentPanel-copyAll');
    this._copyAll.title = _trans.__('Copy the whole text to the clipboard');
    this._showAll.addEventListener('click', this);
    this._copyAll.addEventListener('click', this);
    this.node.append(this._note, this._showAll, this._copyAll);
  }

  /** `hidden` of the `total` characters are not shown. */
  setHiddenCount(hidden: number, total: number): void {
    this._note.textContent = this._trans.__(
      'The first %1 of %2 characters are not shown.',
      hidden.toLocaleString(),
      total.toLocaleString()
    );
  }

  handleEvent(event: Event): void {
    if (event.type !== 'click') {
      return;
    }
    if (event.currentTarget === this._showAll) {
      this._actions.showAll();
    } else if (event.currentTarget === this._copyAll) {
      Clipboard.copyToSystem(this._actions.fullText());
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._showAll.removeEventListener('click', this);
    this._copyAll.removeEventListener('click', this);
    super.dispose();
  }

  private readonly _note = document.createElement('span');
  private readonly _showAll: HTMLButtonElement;
  private readonly _copyAll: HTMLButtonElement;
}

function button(label: string, className: string): HTMLButtonElement {
  const node = document.createElement('button');
  node.type = 'button';
  node.className = `jp-Button jp-mod-minimal jp-AgentPanel-action ${className}`;
  node.textContent = label;
  return node;
}
