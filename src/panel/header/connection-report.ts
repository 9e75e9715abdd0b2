import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import type { AgentPanelService } from '../../model/agent-panel-service';
import type { IConnectionTestEvent } from '../../model/connection/transport-connection';

/**
 * The last "Test connection" result under the toolbar: the verdict in words
 * (and a symbol, never colour alone), what was seen and what to do. A
 * notification only has room for the first sentence. Hidden again when
 * dismissed or when the conversation moves to another endpoint.
 */
export class ConnectionReportView extends Widget {
  constructor(
    private readonly _service: AgentPanelService,
    private readonly _trans: TranslationBundle
  ) {
    super();
    this.addClass('jp-AgentPanel-connectionReport');
    this.node.setAttribute('role', 'status');
    this._symbol.className = 'jp-AgentPanel-connectionSymbol';
    this._symbol.setAttribute('aria-hidden', 'true');
    this._summary.className = 'jp-AgentPanel-connectionSummary';
    this._detail.className = 'jp-AgentPanel-connectionDetail';
    this._close.type = 'button';
    this._close.className = 'jp-AgentPanel-connectionClose';
    this._close.textContent = '×';
    this._close.title = _trans.__('Dismiss');
    this._close.setAttribute('aria-label', _trans.__('Dismiss'));
    const text = document.createElement('div');
    text.className = 'jp-AgentPanel-connectionText';
    text.append(this._summary, this._detail);
    this.node.append(this._symbol, text, this._close);
    this._close.addEventListener('click', this);
    _service.connectionTest.connect(this._onTest, this);
    _service.connectionChanged.connect(this._onEndpoint, this);
    this.hide();
  }

  handleEvent(event: Event): void {
    if (event.type === 'click') {
      this.hide();
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._close.removeEventListener('click', this);
    this._service.connectionTest.disconnect(this._onTest, this);
    this._service.connectionChanged.disconnect(this._onEndpoint, this);
    super.dispose();
  }

  private _onTest(_: AgentPanelService, test: IConnectionTestEvent): void {
    this._shownFor = test.endpoint;
    if (test.report === null) {
      this.node.dataset.verdict = 'testing';
      this._symbol.textContent = '…';
      this._summary.textContent = this._trans.__(
        'Testing the connection to "%1"…',
        test.endpoint
      );
      this._detail.textContent = '';
    } else {
      const { report } = test;
      this.node.dataset.verdict = report.verdict;
      this._symbol.textContent = report.ok
        ? '●'
        : report.verdict === 'needs_setup'
          ? '▲'
          : '✕';
      this._summary.textContent = `${report.endpoint}: ${report.summary}`;
      this._detail.textContent = [report.target, report.detail]
        .filter(Boolean)
        .join(' — ');
    }
    this.show();
  }

  private _onEndpoint(): void {
    if (this._shownFor !== this._service.endpoint.name) {
      this.hide();
    }
  }

  private _shownFor: string | null = null;
  private readonly _symbol = document.createElement('span');
  private readonly _summary = document.createElement('div');
  private readonly _detail = document.createElement('div');
  private readonly _close = document.createElement('button');
}
