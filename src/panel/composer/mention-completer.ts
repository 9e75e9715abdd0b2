import type { TranslationBundle } from '@jupyterlab/translation';
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';
import type { IMentionItem } from '../../context/mentions';

/** Where the popup goes: under the caret, or above it when there is no room. */
export interface ICaretBox {
  left: number;
  top: number;
  bottom: number;
}

/**
 * The `@` completer: a small list under the caret of the files, folders
 * and cells that match what was typed. ↑/↓ move, Enter or Tab choose,
 * Escape closes (the message box passes its keys to `handleKey`); a click
 * chooses too. It lives on the document body while open, as JupyterLab's
 * own completer does.
 */
export class MentionCompleter extends Widget {
  constructor(private readonly _trans: TranslationBundle) {
    super({ node: document.createElement('ul') });
    this.addClass('jp-AgentPanel-mentions');
    this.node.setAttribute('role', 'listbox');
    this.node.setAttribute(
      'aria-label',
      _trans.__('Files and cells to attach')
    );
    this.node.addEventListener('mousedown', this);
    this.node.addEventListener('click', this);
  }

  /** The user chose an item (Enter, Tab or a click). */
  get chosen(): ISignal<this, IMentionItem> {
    return this._chosen;
  }

  get isOpen(): boolean {
    return this.isAttached;
  }

  get items(): readonly IMentionItem[] {
    return this._items;
  }

  /** The highlighted item's index. */
  get active(): number {
    return this._active;
  }

  /** Show `items` at `caret` (viewport coordinates); closes when there are none. */
  open(items: readonly IMentionItem[], caret: ICaretBox): void {
    this._items = items;
    this._active = 0;
    if (items.length === 0) {
      this.close();
      return;
    }
    this._render();
    if (!this.isAttached) {
      Widget.attach(this, document.body);
    }
    const height = this.node.offsetHeight;
    const below = caret.bottom + height <= window.innerHeight;
    this.node.style.left = `${Math.max(0, caret.left)}px`;
    this.node.style.top = `${below ? caret.bottom : Math.max(0, caret.top - height)}px`;
  }

  close(): void {
    if (this.isAttached) {
      Widget.detach(this);
    }
  }

  /**
   * Handle a key while open: true when the completer used it (the message
   * box then does nothing else with it).
   */
  handleKey(key: string): boolean {
    if (!this.isOpen) {
      return false;
    }
    switch (key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        const step = key === 'ArrowDown' ? 1 : -1;
        const count = this._items.length;
        this._active = (this._active + step + count) % count;
        this._render();
        return true;
      }
      case 'Enter':
      case 'Tab':
        this._chosen.emit(this._items[this._active]);
        return true;
      case 'Escape':
        this.close();
        return true;
      default:
        return false;
    }
  }

  handleEvent(event: Event): void {
    // Keep the focus (and the caret) in the message box.
    if (event.type === 'mousedown') {
      event.preventDefault();
      return;
    }
    const option = (event.target as Element).closest<HTMLElement>(
      '[data-index]'
    );
    const item = option ? this._items[Number(option.dataset.index)] : null;
    if (event.type === 'click' && item) {
      this._chosen.emit(item);
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.node.removeEventListener('mousedown', this);
    this.node.removeEventListener('click', this);
    Signal.clearData(this);
    super.dispose();
  }

  private _render(): void {
    const options = this._items.map((item, index) => {
      const option = document.createElement('li');
      option.className = 'jp-AgentPanel-mention';
      option.dataset.index = String(index);
      option.dataset.kind = item.kind;
      option.setAttribute('role', 'option');
      option.setAttribute('aria-selected', String(index === this._active));
      option.classList.toggle('jp-mod-active', index === this._active);
      const label = document.createElement('span');
      label.className = 'jp-AgentPanel-mentionLabel';
      // What is typed stays `@cell 3`; what is shown is in the user's language.
      label.textContent =
        item.kind === 'cell' && item.index !== undefined
          ? this._trans.__('cell %1', item.index + 1)
          : item.label;
      option.append(label);
      const hint = item.hint || this._kindWords(item);
      if (hint) {
        const dim = document.createElement('span');
        dim.className = 'jp-AgentPanel-mentionHint';
        dim.textContent = hint;
        option.append(dim);
      }
      return option;
    });
    this.node.replaceChildren(...options);
    options[this._active]?.scrollIntoView?.({ block: 'nearest' });
  }

  private _kindWords(item: IMentionItem): string {
    switch (item.kind) {
      case 'directory':
        return this._trans.__('folder');
      case 'notebook':
        return this._trans.__('notebook');
      case 'cell':
        return this._trans.__('empty cell');
      case 'file':
        return '';
    }
  }

  private _items: readonly IMentionItem[] = [];
  private _active = 0;
  private readonly _chosen = new Signal<this, IMentionItem>(this);
}
