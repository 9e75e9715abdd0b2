import { Clipboard } from '@jupyterlab/apputils';
import { Panel, Widget } from '@lumino/widgets';
import type { ITextBlock, TranscriptItem } from '../wire/types';
import { ActionBar } from './action-bar';
import type { IItemAddress, IItemView, IItemViewContext } from './item-view';
import { MarkdownView } from './markdown-view';

/**
 * Answer text: sanitized markdown (one render per animation frame, this
 * block only), a Copy button and the `code` actions under each code block,
 * and the `message` actions under the block.
 */
export class TextView implements IItemView {
  constructor(
    private readonly _context: IItemViewContext,
    address: IItemAddress
  ) {
    this.widget = new Panel();
    this.widget.addClass('jp-AgentPanel-textItem');
    this._markdown = new MarkdownView(
      _context.rendermime,
      'jp-AgentPanel-text',
      node => this._decorateCodeBlocks(node)
    );
    this._messageActions = new ActionBar(
      _context.commands,
      _context.itemActions(),
      'message',
      { turn: address.turn, item: address.item }
    );
    this.widget.addWidget(this._markdown);
    this.widget.addWidget(new Widget({ node: this._messageActions.node }));
  }

  readonly widget: Panel;

  /** The markdown block (exposed for tests of the render throttling). */
  get markdown(): MarkdownView {
    return this._markdown;
  }

  update(item: TranscriptItem): void {
    this._markdown.setSource((item as ITextBlock).text);
  }

  dispose(): void {
    this._disposeCodeBars();
    this._messageActions.dispose();
    // Disposes the markdown view with it.
    this.widget.dispose();
  }

  /** Give each rendered code block a Copy button and the `code` actions. */
  private _decorateCodeBlocks(node: HTMLElement): void {
    this._disposeCodeBars();
    const { commands, trans } = this._context;
    for (const pre of node.querySelectorAll('pre')) {
      const code = pre.textContent ?? '';
      const language =
        /language-(\S+)/.exec(
          pre.querySelector('code')?.className ?? ''
        )?.[1] ?? '';
      const bar = new ActionBar(commands, this._context.itemActions(), 'code', {
        code,
        language
      });
      const copy = document.createElement('button');
      copy.type = 'button';
      copy.className =
        'jp-Button jp-mod-minimal jp-AgentPanel-action jp-AgentPanel-copy';
      copy.textContent = trans.__('Copy');
      copy.title = trans.__('Copy this code to the clipboard');
      copy.dataset.code = code;
      copy.addEventListener('click', copyCode);
      bar.node.hidden = false;
      bar.node.prepend(copy);
      bar.node.classList.add('jp-AgentPanel-codeActions');
      pre.after(bar.node);
      this._codeBars.push({ bar, copy });
    }
  }

  private _disposeCodeBars(): void {
    for (const { bar, copy } of this._codeBars) {
      copy.removeEventListener('click', copyCode);
      bar.dispose();
    }
    this._codeBars = [];
  }

  private readonly _markdown: MarkdownView;
  private readonly _messageActions: ActionBar;
  private _codeBars: { bar: ActionBar; copy: HTMLButtonElement }[] = [];
}

/** One shared listener: the code travels on the button itself. */
function copyCode(event: Event): void {
  const button = event.currentTarget as HTMLButtonElement;
  Clipboard.copyToSystem(button.dataset.code ?? '');
}
