import { Notification } from '@jupyterlab/apputils';
import type { TranslationBundle } from '@jupyterlab/translation';
import { caretDownEmptyIcon } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';
import type {
  AgentPanelService,
  ICurrentChange
} from '../../model/agent-panel-service';

/**
 * The toolbar's endpoint dropdown: shows the conversation's endpoint and
 * moves the conversation to another one. A native `<select>`, so keyboards
 * and screen readers get the platform's own behaviour, dressed as
 * JupyterLab's toolbar dropdowns (`HTMLSelect`: borderless, with a caret).
 * Locked (with the reason in its tooltip) while a turn runs or a review waits.
 */
export class EndpointPicker extends Widget {
  constructor(
    private readonly _service: AgentPanelService,
    private readonly _trans: TranslationBundle
  ) {
    super();
    this.addClass('jp-HTMLSelect');
    this.addClass('jp-DefaultStyle');
    this.addClass('jp-AgentPanel-pickerBox');
    this._select.className = 'jp-AgentPanel-picker';
    this._select.setAttribute('aria-label', _trans.__('Agent endpoint'));
    this.node.append(
      this._select,
      caretDownEmptyIcon.element({
        tag: 'span',
        stylesheet: 'select',
        right: '4px',
        top: '4px'
      })
    );
    this._select.addEventListener('change', this);
    _service.connectionChanged.connect(this._render, this);
    _service.settingsChanged.connect(this._render, this);
    _service.model.statusChanged.connect(this._render, this);
    _service.currentChanged.connect(this._onCurrentChanged, this);
    this._render();
  }

  handleEvent(event: Event): void {
    if (event.type !== 'change') {
      return;
    }
    try {
      this._service.selectEndpoint(this._select.value);
    } catch (error) {
      Notification.warning(
        error instanceof Error ? error.message : String(error),
        { autoClose: 5000 }
      );
      this._render();
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._select.removeEventListener('change', this);
    this._service.connectionChanged.disconnect(this._render, this);
    this._service.settingsChanged.disconnect(this._render, this);
    this._service.model.statusChanged.disconnect(this._render, this);
    this._service.currentChanged.disconnect(this._onCurrentChanged, this);
    if (this._lockFrame !== null) {
      cancelAnimationFrame(this._lockFrame);
    }
    super.dispose();
  }

  /** The lock follows the conversation shown. */
  private _onCurrentChanged(
    _: AgentPanelService,
    { current, previous }: ICurrentChange
  ): void {
    previous.model.statusChanged.disconnect(this._render, this);
    current.model.statusChanged.connect(this._render, this);
    this._render();
  }

  private _render(): void {
    const service = this._service;
    const trans = this._trans;
    const current = service.endpoint;
    const names = service.settings.endpoints.map(e => e.name);
    const options = this._select.options;
    const same =
      options.length === names.length &&
      names.every((name, i) => options[i].value === name);
    if (!same) {
      this._select.replaceChildren(
        ...names.map(name => new Option(name, name))
      );
    }
    this._select.value = current.name;
    const blocked = service.switchBlocked;
    this._lockNextFrame();
    const missing = service.missingEndpoint;
    const lines = [
      trans.__(
        'Endpoint of this conversation: %1 (%2)',
        current.name,
        current.transport
      ),
      missing
        ? trans.__(
            'Its endpoint "%1" is no longer in the settings; using the default.',
            missing
          )
        : '',
      blocked ??
        trans.__('Choose another endpoint to move this conversation there.')
    ];
    this._select.title = lines.filter(Boolean).join('\n');
  }

  /**
   * Lock or unlock at the next animation frame, not inside Send or a turn's
   * end: JupyterLab's toolbar observes `disabled` in its subtree and answers
   * each change by reading every item's style and layout, which would force
   * a layout of the whole page in those tasks. The service refuses a switch
   * in between.
   */
  private _lockNextFrame(): void {
    this._lockFrame ??= requestAnimationFrame(() => {
      this._lockFrame = null;
      const locked = this._service.switchBlocked !== null;
      if (this._select.disabled !== locked) {
        this._select.disabled = locked;
      }
    });
  }

  private readonly _select = document.createElement('select');
  private _lockFrame: number | null = null;
}
