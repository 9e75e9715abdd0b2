import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import type { ChatModel } from '../../model/conversation/chat-model';
import type { ChatStatus } from '../../model/conversation/chat/chat-status';
import { formatElapsed } from '../common/format';

/**
 * "Working… 0:12" while a turn runs, counted from the turn's start. Not a
 * live region: the announcer reports start and end once.
 */
export class WorkingIndicator extends Widget {
  constructor(
    private readonly _model: ChatModel,
    private readonly _trans: TranslationBundle
  ) {
    super();
    this.addClass('jp-AgentPanel-working');
    const spinner = document.createElement('span');
    spinner.className = 'jp-AgentPanel-spinner';
    spinner.setAttribute('aria-hidden', 'true');
    this._label = document.createElement('span');
    this.node.append(spinner, this._label);
    _model.statusChanged.connect(this._onStatus, this);
    this._onStatus(_model, _model.status);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._stopTimer();
    this._model.statusChanged.disconnect(this._onStatus, this);
    super.dispose();
  }

  private _onStatus(_: ChatModel, status: ChatStatus): void {
    const running = status === 'running';
    this.setHidden(!running);
    if (running) {
      this._tick();
      this._timer ??= setInterval(() => this._tick(), 1000);
    } else {
      this._stopTimer();
    }
  }

  private _tick(): void {
    const started = this._model.runningTurn?.startedAt ?? Date.now();
    this._label.textContent = this._trans.__(
      'Working… %1',
      formatElapsed(Date.now() - started)
    );
  }

  private _stopTimer(): void {
    if (this._timer !== null) {
      clearInterval(this._timer);
      this._timer = null;
    }
  }

  private readonly _label: HTMLSpanElement;
  private _timer: ReturnType<typeof setInterval> | null = null;
}
