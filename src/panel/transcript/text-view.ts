import { Clipboard } from '@jupyterlab/apputils';
import { Panel, Widget } from '@lumino/widgets';
import type { ITextBlock, TranscriptItem } from '../../wire/types';
import { ActionBar } from '../common/action-bar';
import type {
  IItemAddress,
  IItemView,
  IItemViewContext
} from '../common/item-view';
import { MarkdownView } from './markdown-view';

/**
 * Answer text: sanitized markdown (settled blocks rendered once, the tail at
 * most once per animation frame), a Copy button and the `code` actions under
 * each code block, and the `message` actions under the block.
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
      {
        rendered: node => this._decorateCodeBlocks(node),
        discarded: node => this._disposeCodeBars(node)
      },
      { trans: _context.trans }
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

  /**
   * A later item came: the text is complete (any later item closes the
   * text block it follows). Its last render goes to the next frame, not to
   * the task that ends the turn with every other text of it.
   */
  superseded(): void {
    this._markdown.finish('next frame');
  }

  /** The turn ended: the text is complete. */
  settle(): void {
    this._markdown.finish();
  }

  dispose(): void {
    for (const node of [...this._codeBars.keys()]) {
      this._disposeCodeBars(node);
    }
    this._messageActions.dispose();
    // Disposes the markdown view with it.
    this.widget.dispose();
  }

  /**
   * Give each code block of a block just rendered a Copy button and the
   * `code` actions (settled blocks are rendered, so decorated, once).
   */
  private _decorateCodeBlocks(node: HTMLElement): void {
    const { commands, trans } = this._context;
    const bars: ICodeBar[] = [];
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
      bars.push({ bar, copy });
    }
    if (bars.length > 0) {
      this._codeBars.set(node, bars);
    }
  }

  private _disposeCodeBars(node: HTMLElement): void {
    for (const { bar, copy } of this._codeBars.get(node) ?? []) {
      copy.removeEventListener('click', copyCode);
      bar.dispose();
    }
    this._codeBars.delete(node);
  }

  private readonly _markdown: MarkdownView;
  private readonly _messageActions: ActionBar;
  /** The code bars of each rendered block that has code. */
  private readonly _codeBars = new Map<HTMLElement, ICodeBar[]>();
}

interface ICodeBar {
  bar: ActionBar;
  copy: HTMLButtonElement;
}

/** One shared listener: the code travels on the button itself. */
function copyCode(event: Event): void {
  const button = event.currentTarget as HTMLButtonElement;
  Clipboard.copyToSystem(button.dataset.code ?? '');
}
