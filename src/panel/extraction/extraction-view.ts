import { type IRenderMime, MimeModel } from '@jupyterlab/rendermime';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { Panel, PanelLayout, Widget } from '@lumino/widgets';
import type { IExtractionCard, TranscriptItem } from '../../wire/types';
import { ActionBar } from '../common/action-bar';
import { extractionTable } from './extraction-table';
import { prettyJson } from '../common/format';
import type {
  IItemAddress,
  IItemView,
  IItemViewContext
} from '../common/item-view';

/**
 * Structured data a tool produced, shown like a notebook output: a table
 * when the data is a list of records or a flat object, and the JSON through
 * rendermime (`application/json` when a renderer is registered, plain text
 * otherwise). Labelled with its type and tool; plugins add actions (e.g.
 * "Insert into notebook").
 */
export class ExtractionView implements IItemView {
  constructor(
    private readonly _context: IItemViewContext,
    address: IItemAddress
  ) {
    const trans = _context.trans;
    this.widget = new Panel();
    this.widget.addClass('jp-AgentPanel-extraction');
    const header = document.createElement('div');
    header.className = 'jp-AgentPanel-extractionHeader';
    this._type = document.createElement('span');
    this._type.className = 'jp-AgentPanel-extractionType';
    this._tool = document.createElement('span');
    this._tool.className = 'jp-AgentPanel-extractionTool';
    header.append(this._type, this._tool);
    this._table = document.createElement('div');
    this._table.className = 'jp-AgentPanel-extractionTable';
    // A <details> widget with a layout, so the renderer is a child widget.
    this._json = document.createElement('details');
    const jsonWidget = new Widget({ node: this._json });
    jsonWidget.addClass('jp-AgentPanel-extractionJson');
    this._jsonLayout = new PanelLayout();
    jsonWidget.layout = this._jsonLayout;
    const summary = document.createElement('summary');
    summary.textContent = trans.__('JSON');
    this._jsonLayout.addWidget(new Widget({ node: summary }));
    this._actions = new ActionBar(
      _context.commands,
      _context.itemActions(),
      'extraction',
      { turn: address.turn, item: address.item }
    );
    for (const node of [header, this._table]) {
      this.widget.addWidget(new Widget({ node }));
    }
    this.widget.addWidget(jsonWidget);
    this.widget.addWidget(new Widget({ node: this._actions.node }));
  }

  readonly widget: Panel;

  update(item: TranscriptItem): void {
    const card = item as IExtractionCard;
    const trans = this._context.trans;
    this._type.textContent = card.extractedType || trans.__('data');
    this._tool.textContent = trans.__('from %1', card.toolName);
    const table = extractionTable(card.data, {
      key: trans.__('Key'),
      value: trans.__('Value'),
      moreRows: (shown, total) =>
        trans.__('Showing %1 of %2 rows', shown, total)
    });
    this._table.replaceChildren(...(table ? [table] : []));
    this._table.hidden = table === null;
    // Without a table the JSON is the content: show it open.
    this._json.open = table === null;
    this._data = card.data;
    this._jsonStale = true;
    if (this._json.open) {
      this._showJson();
    } else {
      // A card costs its table; the JSON viewer is built when it is opened.
      this._json.addEventListener('toggle', this);
    }
  }

  handleEvent(event: Event): void {
    if (event.type === 'toggle' && this._json.open) {
      this._showJson();
    }
  }

  dispose(): void {
    this._json.removeEventListener('toggle', this);
    this._actions.dispose();
    // Disposes the JSON renderer with it.
    this.widget.dispose();
  }

  private _showJson(): void {
    this._json.removeEventListener('toggle', this);
    if (this._jsonStale) {
      this._jsonStale = false;
      void this._renderJson(this._data);
    }
  }

  private async _renderJson(data: unknown): Promise<void> {
    const bundle = {
      'application/json': data,
      'text/plain': prettyJson(data)
    } as ReadonlyPartialJSONObject;
    const rendermime = this._context.rendermime;
    const mimeType = rendermime.preferredMimeType(bundle, 'ensure');
    if (!mimeType) {
      return;
    }
    this._renderer?.dispose();
    const renderer = rendermime.createRenderer(mimeType);
    this._renderer = renderer;
    renderer.addClass('jp-AgentPanel-extractionOutput');
    this._jsonLayout.addWidget(renderer);
    try {
      await renderer.renderModel(
        new MimeModel({ data: bundle, trusted: false })
      );
    } catch (error) {
      console.error('Agent Panel: could not render extracted data.', error);
    }
  }

  private readonly _type: HTMLSpanElement;
  private readonly _tool: HTMLSpanElement;
  private readonly _table: HTMLDivElement;
  private readonly _jsonLayout: PanelLayout;
  private readonly _json: HTMLDetailsElement;
  private readonly _actions: ActionBar;
  private _renderer: IRenderMime.IRenderer | null = null;
  private _data: unknown = null;
  /** The JSON viewer does not show the latest data (or is not built). */
  private _jsonStale = false;
}
