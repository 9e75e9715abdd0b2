import { Clipboard } from '@jupyterlab/apputils';
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { CommandRegistry } from '@lumino/commands';
import { Widget } from '@lumino/widgets';
import type { IItemAction } from '../tokens';
import type {
  IExtractionCard,
  IReasoningBlock,
  IToolCard,
  TranscriptItem
} from '../wire/types';
import { ActionBar } from './action-bar';
import { MarkdownView } from './markdown-view';

/** A view of one transcript item that can be brought up to date cheaply. */
export interface IItemView {
  readonly widget: Widget;
  update(item: TranscriptItem): void;
  /** The turn ended: e.g. collapse reasoning. */
  settle?(): void;
  dispose?(): void;
}

export interface IItemViewContext {
  rendermime: IRenderMimeRegistry;
  trans: TranslationBundle;
  commands: CommandRegistry;
  /** The item actions contributed by plugins, read when a view is built. */
  itemActions(): readonly IItemAction[];
}

/** Where an item lives: the key of its turn entry and its own key. */
export interface IItemAddress {
  turn: string;
  item: number;
}

export function createItemView(
  item: TranscriptItem,
  context: IItemViewContext,
  address: IItemAddress
): IItemView | null {
  switch (item.kind) {
    case 'text':
      return new TextView(context);
    case 'reasoning':
      return new ReasoningView(context);
    case 'tool':
      return new ToolView(context);
    case 'extraction':
      return new ExtractionView(context, address);
    default:
      return null;
  }
}

class TextView implements IItemView {
  constructor(private readonly _context: IItemViewContext) {
    this.widget = new MarkdownView(
      _context.rendermime,
      'jp-AgentPanel-text',
      node => this._decorateCodeBlocks(node)
    );
  }

  update(item: TranscriptItem): void {
    this.widget.setSource((item as { text: string }).text);
  }

  dispose(): void {
    this._disposeBars();
  }

  /** Give each rendered code block a Copy button and the `code` actions. */
  private _decorateCodeBlocks(node: HTMLElement): void {
    this._disposeBars();
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
      copy.className = 'jp-Button jp-mod-minimal jp-AgentPanel-action';
      copy.textContent = trans.__('Copy');
      copy.title = trans.__('Copy this code to the clipboard');
      copy.addEventListener('click', () => Clipboard.copyToSystem(code));
      bar.node.hidden = false;
      bar.node.prepend(copy);
      bar.node.classList.add('jp-AgentPanel-codeActions');
      pre.after(bar.node);
      this._bars.push(bar);
    }
  }

  private _disposeBars(): void {
    this._bars.forEach(bar => bar.dispose());
    this._bars = [];
  }

  readonly widget: MarkdownView;
  private _bars: ActionBar[] = [];
}

class ReasoningView implements IItemView {
  constructor({ trans }: IItemViewContext) {
    this.widget = new Widget({ node: document.createElement('details') });
    this.widget.addClass('jp-AgentPanel-reasoning');
    const details = this.widget.node as HTMLDetailsElement;
    details.open = true;
    const summary = document.createElement('summary');
    summary.textContent = trans.__('Reasoning');
    this._body = document.createElement('div');
    this._body.className = 'jp-AgentPanel-reasoningText';
    details.append(summary, this._body);
  }

  update(item: TranscriptItem): void {
    this._body.textContent = (item as IReasoningBlock).text;
  }

  settle(): void {
    (this.widget.node as HTMLDetailsElement).open = false;
  }

  readonly widget: Widget;
  private readonly _body: HTMLDivElement;
}

class ToolView implements IItemView {
  constructor({ trans }: IItemViewContext) {
    this._trans = trans;
    this.widget = new Widget();
    this.widget.addClass('jp-AgentPanel-tool');
    this._title = document.createElement('div');
    this._title.className = 'jp-AgentPanel-toolTitle';
    this._args = document.createElement('pre');
    this._args.className = 'jp-AgentPanel-toolArgs';
    this._result = document.createElement('pre');
    this._result.className = 'jp-AgentPanel-toolResult';
    this.widget.node.append(this._title, this._args, this._result);
  }

  update(item: TranscriptItem): void {
    const card = item as IToolCard;
    const trans = this._trans;
    const status = {
      pending: trans.__('running'),
      success: trans.__('succeeded'),
      error: trans.__('failed'),
      unknown: trans.__('finished')
    }[card.status];
    this.widget.node.dataset.status = card.status;
    this._title.textContent = trans.__('Tool %1 — %2', card.name, status);
    this._args.textContent =
      card.rawArgs ?? (card.args === undefined ? '' : pretty(card.args));
    this._args.hidden = this._args.textContent === '';
    this._result.hidden = card.result === undefined;
    this._result.textContent =
      typeof card.result === 'string' ? card.result : pretty(card.result);
  }

  readonly widget: Widget;
  private readonly _trans: TranslationBundle;
  private readonly _title: HTMLDivElement;
  private readonly _args: HTMLPreElement;
  private readonly _result: HTMLPreElement;
}

class ExtractionView implements IItemView {
  constructor(context: IItemViewContext, address: IItemAddress) {
    this._trans = context.trans;
    this.widget = new Widget();
    this.widget.addClass('jp-AgentPanel-extraction');
    this._title = document.createElement('div');
    this._title.className = 'jp-AgentPanel-extractionTitle';
    this._data = document.createElement('pre');
    this._actions = new ActionBar(
      context.commands,
      context.itemActions(),
      'extraction',
      { turn: address.turn, item: address.item }
    );
    this.widget.node.append(this._title, this._data, this._actions.node);
  }

  dispose(): void {
    this._actions.dispose();
  }

  update(item: TranscriptItem): void {
    const card = item as IExtractionCard;
    this._title.textContent = this._trans.__(
      '%1 from %2',
      card.extractedType,
      card.toolName
    );
    this._data.textContent = pretty(card.data);
  }

  readonly widget: Widget;
  private readonly _trans: TranslationBundle;
  private readonly _title: HTMLDivElement;
  private readonly _data: HTMLPreElement;
  private readonly _actions: ActionBar;
}

export function pretty(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
