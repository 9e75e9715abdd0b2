import type { TranslationBundle } from '@jupyterlab/translation';
import type { AgentPanelService } from '../../model/agent-panel-service';
import type { ICurrentChange } from '../../model/conversation/session';
import { ToolbarSelect } from '../common/toolbar-select';

/**
 * The toolbar's endpoint dropdown: shows the conversation's endpoint and
 * moves the conversation to another one. Locked (with the reason in its
 * tooltip) while a turn runs or a review waits.
 */
export class EndpointPicker extends ToolbarSelect {
  constructor(
    private readonly _service: AgentPanelService,
    private readonly _trans: TranslationBundle
  ) {
    super('jp-AgentPanel-picker', _trans.__('Agent endpoint'));
    _service.connectionChanged.connect(this.render, this);
    _service.settingsChanged.connect(this.render, this);
    _service.model.statusChanged.connect(this.render, this);
    _service.currentChanged.connect(this._onCurrentChanged, this);
    this.render();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._service.connectionChanged.disconnect(this.render, this);
    this._service.settingsChanged.disconnect(this.render, this);
    this._service.model.statusChanged.disconnect(this.render, this);
    this._service.currentChanged.disconnect(this._onCurrentChanged, this);
    super.dispose();
  }

  protected choose(value: string): void {
    this._service.selectEndpoint(value);
  }

  /** The lock follows the conversation shown. */
  private _onCurrentChanged(
    _: AgentPanelService,
    { current, previous }: ICurrentChange
  ): void {
    previous.model.statusChanged.disconnect(this.render, this);
    current.model.statusChanged.connect(this.render, this);
    this.render();
  }

  protected render(): void {
    const service = this._service;
    const trans = this._trans;
    const current = service.endpoint;
    const names = service.settings.endpoints.map(e => e.name);
    const options = this.select.options;
    const same =
      options.length === names.length &&
      names.every((name, i) => options[i].value === name);
    if (!same) {
      this.select.replaceChildren(...names.map(name => new Option(name, name)));
    }
    this.select.value = current.name;
    const blocked = service.switchBlocked;
    this.lockNextFrame(() => this._service.switchBlocked !== null);
    const missing = service.missingEndpoint;
    // Where it is: the header's address, which a narrow panel leaves out.
    const where = service.problem ?? service.model.transport?.label ?? '';
    const lines = [
      trans.__(
        'Endpoint of this conversation: %1 (%2)',
        current.name,
        current.transport
      ),
      where,
      missing
        ? trans.__(
            'Its endpoint "%1" is no longer in the settings; using the default.',
            missing
          )
        : '',
      blocked ??
        trans.__('Choose another endpoint to move this conversation there.')
    ];
    this.select.title = lines.filter(Boolean).join('\n');
  }
}
