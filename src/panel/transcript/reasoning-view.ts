import { Widget } from '@lumino/widgets';
import type { IReasoningBlock, TranscriptItem } from '../../wire/types';
import type { IItemView, IItemViewContext } from '../common/item-view';

/**
 * Reasoning, in a collapsible block: open while it streams, collapsed once
 * the answer (or anything else) follows and when the turn ends. The reader
 * can open it again.
 */
export class ReasoningView implements IItemView {
  constructor({ trans }: IItemViewContext) {
    this.widget = new Widget({ node: document.createElement('details') });
    this.widget.addClass('jp-AgentPanel-reasoning');
    this._details = this.widget.node as HTMLDetailsElement;
    this._details.open = true;
    const summary = document.createElement('summary');
    summary.textContent = trans.__('Reasoning');
    this._body = document.createElement('div');
    this._body.className = 'jp-AgentPanel-reasoningText';
    this._body.append(this._text);
    this._details.append(summary, this._body);
  }

  readonly widget: Widget;

  /**
   * The reducer only ever appends to a block's text, so only what is new
   * is appended to the shown text: an update costs the delta, not the text.
   */
  update(item: TranscriptItem): void {
    const text = (item as IReasoningBlock).text;
    const shown = this._text.length;
    if (text.length >= shown) {
      this._text.appendData(text.slice(shown));
    } else {
      this._text.data = text;
    }
  }

  superseded(): void {
    this._collapseOnce();
  }

  settle(): void {
    this._collapseOnce();
  }

  dispose(): void {
    this.widget.dispose();
  }

  /** Collapse automatically once; after that the reader decides. */
  private _collapseOnce(): void {
    if (!this._collapsed) {
      this._collapsed = true;
      this._details.open = false;
    }
  }

  private readonly _details: HTMLDetailsElement;
  private readonly _body: HTMLDivElement;
  private readonly _text = document.createTextNode('');
  private _collapsed = false;
}
