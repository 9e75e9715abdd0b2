import { caretDownEmptyIcon } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';
import { showRefusal } from './refusal-notice';

/**
 * A dropdown of the panel's toolbar (the endpoint, the model): a native
 * `<select>`, so keyboards and screen readers get the platform's own
 * behaviour, dressed as JupyterLab's toolbar dropdowns (`HTMLSelect`:
 * borderless, with a caret). A choice the owner refuses is said in a
 * notification and the dropdown shows the current value again.
 */
export abstract class ToolbarSelect extends Widget {
  constructor(selectClass: string, label: string) {
    super();
    this.addClass('jp-HTMLSelect');
    this.addClass('jp-DefaultStyle');
    this.addClass('jp-AgentPanel-pickerBox');
    this.select.className = selectClass;
    this.select.setAttribute('aria-label', label);
    this.node.append(
      this.select,
      caretDownEmptyIcon.element({
        tag: 'span',
        stylesheet: 'select',
        right: '4px',
        top: '4px'
      })
    );
    this.select.addEventListener('change', this);
  }

  handleEvent(event: Event): void {
    if (event.type !== 'change') {
      return;
    }
    try {
      this.choose(this.select.value);
    } catch (error) {
      showRefusal(error);
      this.render();
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.select.removeEventListener('change', this);
    if (this._lockFrame !== null) {
      cancelAnimationFrame(this._lockFrame);
    }
    super.dispose();
  }

  /** The user chose `value`; throws with a sentence for the user to refuse it. */
  protected abstract choose(value: string): void;

  /** Show the current value (after a refused choice, among others). */
  protected abstract render(): void;

  /**
   * Lock or unlock at the next animation frame, not inside Send or a turn's
   * end: JupyterLab's toolbar observes `disabled` in its subtree and answers
   * each change by reading every item's style and layout, which would force
   * a layout of the whole page in those tasks. The owner refuses a choice in
   * between; `locked` is read at the frame.
   */
  protected lockNextFrame(locked: () => boolean): void {
    this._lockFrame ??= requestAnimationFrame(() => {
      this._lockFrame = null;
      const lock = locked();
      if (this.select.disabled !== lock) {
        this.select.disabled = lock;
      }
    });
  }

  protected readonly select = document.createElement('select');
  private _lockFrame: number | null = null;
}
