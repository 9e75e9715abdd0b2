import { MimeModel } from '@jupyterlab/rendermime';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { Panel, Widget } from '@lumino/widgets';
import { isObject } from '../../wire/json';
import type { IExtractionCard, TranscriptItem } from '../../wire/types';
import { ActionBar } from '../common/action-bar';
import { extractionTable } from './extraction-table';
import { prettyJson } from '../common/format';
import type {
  IItemAddress,
  IItemView,
  IItemViewContext
} from '../common/item-view';

/** What a `display_inline` extraction asks to show. */
export interface IInlineDisplay {
  /** A MIME bundle for rendermime, or rows for a table. */
  bundle: Record<string, unknown> | null;
  table: unknown;
  title: string | null;
  status: string | null;
}

/** `display_type` values and the MIME type their `data` is. */
const DISPLAY_MIME: Record<string, string> = {
  html: 'text/html',
  markdown: 'text/markdown',
  md: 'text/markdown',
  text: 'text/plain',
  json: 'application/json',
  latex: 'text/latex',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  gif: 'image/gif'
};

const DATA_URL = /^data:(image\/[a-z0-9.+-]+);base64,(.*)$/is;

/**
 * Read a `display_inline` payload (langstage-core's `DisplayInlineExtractor`:
 * `{display_type, data, title?, status?}`): `data` that is a MIME bundle is
 * used as it is; otherwise `display_type` says what `data` is (an image as
 * a data URL or base64, HTML, Markdown, JSON, text, a table). Null when it
 * cannot be shown that way.
 */
export function readInlineDisplay(data: unknown): IInlineDisplay | null {
  if (!isObject(data)) {
    return null;
  }
  const record = data;
  const type = String(record.display_type ?? '').toLowerCase();
  const payload = record.data;
  const title = typeof record.title === 'string' ? record.title : null;
  const status = typeof record.status === 'string' ? record.status : null;
  const display = { bundle: null, table: null, title, status };
  if (isMimeBundle(payload)) {
    return { ...display, bundle: payload };
  }
  if (type === 'table' || type === 'dataframe') {
    return { ...display, table: payload };
  }
  if (type === 'image' && typeof payload === 'string') {
    const url = DATA_URL.exec(payload.trim());
    return {
      ...display,
      bundle: url
        ? { [url[1].toLowerCase()]: url[2] }
        : { 'image/png': payload }
    };
  }
  const mime = DISPLAY_MIME[type];
  if (!mime || payload === undefined) {
    return null;
  }
  const isText = mime.startsWith('text/') || mime === 'image/svg+xml';
  if (isText && typeof payload !== 'string') {
    return null;
  }
  return {
    ...display,
    bundle: {
      [mime]: payload,
      ...(mime === 'text/plain' ? {} : { 'text/plain': prettyJson(payload) })
    }
  };
}

/**
 * A `display_inline` extraction shown as what it is (an image, HTML, a
 * table…) through rendermime, untrusted: HTML is sanitized and scripts
 * never run. Plugins' extraction actions stay available.
 */
export class DisplayInlineView implements IItemView {
  /** A view of `card`, or null when nothing here can show its data. */
  static create(
    context: IItemViewContext,
    address: IItemAddress,
    card: IExtractionCard
  ): DisplayInlineView | null {
    const display = readInlineDisplay(card.data);
    if (!display) {
      return null;
    }
    const mimeType = display.bundle
      ? context.rendermime.preferredMimeType(
          display.bundle as ReadonlyPartialJSONObject,
          'ensure'
        )
      : null;
    if (display.bundle && !mimeType) {
      return null;
    }
    return new DisplayInlineView(context, address, display, mimeType ?? null);
  }

  private constructor(
    private readonly _context: IItemViewContext,
    address: IItemAddress,
    private readonly _display: IInlineDisplay,
    private readonly _mimeType: string | null
  ) {
    const trans = _context.trans;
    this.widget = new Panel();
    this.widget.addClass('jp-AgentPanel-extraction');
    this.widget.addClass('jp-AgentPanel-displayInline');
    const header = document.createElement('div');
    header.className = 'jp-AgentPanel-extractionHeader';
    header.textContent = [
      _display.title ?? trans.__('Display'),
      _display.status
    ]
      .filter(Boolean)
      .join(' · ');
    this.widget.addWidget(new Widget({ node: header }));
    this._actions = new ActionBar(
      _context.commands,
      _context.itemActions(),
      'extraction',
      { turn: address.turn, item: address.item }
    );
  }

  readonly widget: Panel;

  update(_item: TranscriptItem): void {
    if (this._rendered) {
      return;
    }
    this._rendered = true;
    const { bundle, table } = this._display;
    if (bundle && this._mimeType) {
      void this._render(bundle as ReadonlyPartialJSONObject, this._mimeType);
    } else {
      const trans = this._context.trans;
      const node =
        extractionTable(table, {
          key: trans.__('Key'),
          value: trans.__('Value'),
          moreRows: (shown, total) =>
            trans.__('Showing %1 of %2 rows', shown, total)
        }) ?? preText(prettyJson(table));
      const wrapper = document.createElement('div');
      wrapper.className = 'jp-AgentPanel-extractionTable';
      wrapper.append(node);
      this.widget.addWidget(new Widget({ node: wrapper }));
    }
    this.widget.addWidget(new Widget({ node: this._actions.node }));
  }

  dispose(): void {
    this._actions.dispose();
    this.widget.dispose();
  }

  private async _render(
    bundle: ReadonlyPartialJSONObject,
    mimeType: string
  ): Promise<void> {
    // A child widget: disposed with the card.
    const renderer = this._context.rendermime.createRenderer(mimeType);
    renderer.addClass('jp-AgentPanel-extractionOutput');
    this.widget.insertWidget(1, renderer);
    try {
      await renderer.renderModel(
        new MimeModel({ data: bundle, trusted: false })
      );
    } catch (error) {
      console.error('Agent Panel: could not render a display_inline.', error);
    }
  }

  private readonly _actions: ActionBar;
  private _rendered = false;
}

function isMimeBundle(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) {
    return false;
  }
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every(key => /^[a-z]+\/[\w.+-]+$/i.test(key));
}

function preText(text: string): HTMLPreElement {
  const pre = document.createElement('pre');
  pre.textContent = text;
  return pre;
}
