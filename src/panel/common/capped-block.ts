import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';

/**
 * Preformatted text shown shortened, with a "Show more" / "Show less"
 * toggle when a preview was given. The choice survives later updates.
 */
export class CappedBlock implements IDisposable {
  constructor(
    private readonly _trans: TranslationBundle,
    className: string
  ) {
    this.node = document.createElement('div');
    this.node.className = `jp-AgentPanel-capped ${className}`;
    this._text = document.createElement('pre');
    this._toggle = document.createElement('button');
    this._toggle.type = 'button';
    this._toggle.className = 'jp-Button jp-mod-minimal jp-AgentPanel-showMore';
    this._toggle.addEventListener('click', this);
    this.node.append(this._text, this._toggle);
  }

  readonly node: HTMLDivElement;

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  get expanded(): boolean {
    return this._expanded;
  }

  /** Show `full`, or `preview` first when it is not null. */
  set(full: string, preview: string | null): void {
    this._full = full;
    this._preview = preview;
    this._render();
  }

  handleEvent(event: Event): void {
    if (event.type === 'click') {
      this._expanded = !this._expanded;
      this._render();
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._toggle.removeEventListener('click', this);
  }

  private _render(): void {
    const capped = this._preview !== null;
    this._toggle.hidden = !capped;
    this._toggle.textContent = this._expanded
      ? this._trans.__('Show less')
      : this._trans.__('Show more');
    this._toggle.setAttribute('aria-expanded', String(this._expanded));
    this._text.textContent =
      capped && !this._expanded ? this._preview : this._full;
  }

  private readonly _text: HTMLPreElement;
  private readonly _toggle: HTMLButtonElement;
  private _full = '';
  private _preview: string | null = null;
  private _expanded = false;
  private _isDisposed = false;
}
