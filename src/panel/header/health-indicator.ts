import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import type {
  HealthDisplayState,
  HealthMonitor,
  IHealthStatus
} from '../../model/connection/health-monitor';

/**
 * The endpoint's health in the toolbar, as a word and a symbol (not colour
 * alone), with the reason in the tooltip. Clicking checks again.
 */
export class HealthIndicator extends Widget {
  constructor(
    private readonly _monitor: HealthMonitor,
    private readonly _trans: TranslationBundle
  ) {
    super({ node: document.createElement('button') });
    this.addClass('jp-AgentPanel-health');
    const button = this.node as HTMLButtonElement;
    button.type = 'button';
    this._symbol = document.createElement('span');
    this._symbol.className = 'jp-AgentPanel-healthSymbol';
    this._symbol.setAttribute('aria-hidden', 'true');
    this._label = document.createElement('span');
    this._label.className = 'jp-AgentPanel-healthLabel';
    button.append(this._symbol, this._label);
    button.addEventListener('click', this);
    _monitor.changed.connect(this._render, this);
    this._render(_monitor, _monitor.status);
  }

  handleEvent(event: Event): void {
    if (event.type === 'click') {
      this._monitor.refresh();
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.node.removeEventListener('click', this);
    this._monitor.changed.disconnect(this._render, this);
    super.dispose();
  }

  private _render(_: HealthMonitor, status: IHealthStatus): void {
    const trans = this._trans;
    const labels: Record<HealthDisplayState, string> = {
      healthy: trans.__('Ready'),
      needs_setup: trans.__('Needs setup'),
      unreachable: trans.__('Unreachable'),
      checking: trans.__('Checking…'),
      unconfigured: trans.__('Not configured')
    };
    const symbols: Record<HealthDisplayState, string> = {
      healthy: '●',
      needs_setup: '▲',
      unreachable: '✕',
      checking: '…',
      unconfigured: '○'
    };
    this.node.dataset.state = status.state;
    this._symbol.textContent = symbols[status.state];
    this._label.textContent = labels[status.state];
    const detail =
      status.state === 'healthy'
        ? (status.agentName ?? status.message)
        : status.message;
    const summary = detail
      ? trans.__('Agent: %1 — %2', labels[status.state], detail)
      : trans.__('Agent: %1', labels[status.state]);
    this.node.title = `${summary}\n${trans.__('Click to check again.')}`;
    this.node.setAttribute('aria-label', summary);
  }

  private readonly _symbol: HTMLSpanElement;
  private readonly _label: HTMLSpanElement;
}
