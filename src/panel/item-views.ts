import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import type {
  IExtractionCard,
  IReasoningBlock,
  IToolCard,
  TranscriptItem
} from '../wire/types';
import { MarkdownView } from './markdown-view';

/** A view of one transcript item that can be brought up to date cheaply. */
export interface IItemView {
  readonly widget: Widget;
  update(item: TranscriptItem): void;
  /** The turn ended: e.g. collapse reasoning. */
  settle?(): void;
}

export interface IItemViewContext {
  rendermime: IRenderMimeRegistry;
  trans: TranslationBundle;
}

export function createItemView(
  item: TranscriptItem,
  context: IItemViewContext
): IItemView | null {
  switch (item.kind) {
    case 'text':
      return new TextView(context);
    case 'reasoning':
      return new ReasoningView(context);
    case 'tool':
      return new ToolView(context);
    case 'extraction':
      return new ExtractionView(context);
    default:
      return null;
  }
}

class TextView implements IItemView {
  constructor(context: IItemViewContext) {
    this.widget = new MarkdownView(context.rendermime, 'jp-AgentPanel-text');
  }

  update(item: TranscriptItem): void {
    this.widget.setSource((item as { text: string }).text);
  }

  readonly widget: MarkdownView;
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
  constructor({ trans }: IItemViewContext) {
    this._trans = trans;
    this.widget = new Widget();
    this.widget.addClass('jp-AgentPanel-extraction');
    this._title = document.createElement('div');
    this._title.className = 'jp-AgentPanel-extractionTitle';
    this._data = document.createElement('pre');
    this.widget.node.append(this._title, this._data);
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
}

export function pretty(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
