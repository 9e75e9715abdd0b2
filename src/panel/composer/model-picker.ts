import type { TranslationBundle } from '@jupyterlab/translation';
import type { IModelOffer } from '../../contracts/models';
import type { ModelChoice } from '../../model/conversation/model-choice';
import { ToolbarSelect } from '../common/toolbar-select';

/** One `<option>` as it should be. */
interface IOptionSpec {
  /** '' stands for the endpoint's default (no model chosen). */
  value: string;
  label: string;
  disabled: boolean;
  title: string;
}

/**
 * The toolbar's model dropdown, next to the endpoint's: the model of the
 * conversation's next messages, of those its endpoint offers
 * (docs/protocol.md §16.3). Shown only when the endpoint lets the
 * conversation choose; models that cannot be used are listed disabled, with
 * the reason. Locked while a turn runs.
 */
export class ModelPicker extends ToolbarSelect {
  constructor(
    private readonly _choice: ModelChoice,
    private readonly _trans: TranslationBundle
  ) {
    super('jp-AgentPanel-modelPicker', _trans.__('Agent model'));
    this.addClass('jp-AgentPanel-modelPickerBox');
    _choice.changed.connect(this.render, this);
    this.render();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._choice.changed.disconnect(this.render, this);
    super.dispose();
  }

  protected choose(value: string): void {
    this._choice.choose(value || null);
  }

  /**
   * Write only what changed: JupyterLab's toolbar answers each change
   * inside it with a forced layout (see `EndpointPicker`).
   */
  protected render(): void {
    const offer = this._choice.offer;
    this.setHidden(offer === null);
    if (offer === null) {
      return;
    }
    const chosen = this._choice.chosen;
    const options = this._options(offer, chosen);
    const key = JSON.stringify(options);
    if (key !== this._optionsKey) {
      this._optionsKey = key;
      this.select.replaceChildren(...options.map(optionOf));
    }
    const value = chosen ?? '';
    if (this.select.value !== value) {
      this.select.value = value;
    }
    const title = this._tooltip(offer, options, value);
    if (this.select.title !== title) {
      this.select.title = title;
    }
    this.lockNextFrame(() => this._choice.blocked !== null);
  }

  /** The endpoint's default first, then every model, and a chosen one it lacks. */
  private _options(offer: IModelOffer, chosen: string | null): IOptionSpec[] {
    const trans = this._trans;
    const byId = new Map(offer.models.map(model => [model.id, model]));
    const defaultOffered =
      offer.defaultModel === null ? undefined : byId.get(offer.defaultModel);
    const first: IOptionSpec =
      offer.defaultModel === null
        ? {
            value: '',
            label: trans.__('Demo agent (no model)'),
            disabled: false,
            title: trans.__('The keyless demo agent answers.')
          }
        : {
            value: '',
            label:
              defaultOffered && !defaultOffered.usable
                ? trans.__('%1 (default, unavailable)', offer.defaultModel)
                : trans.__('%1 (default)', offer.defaultModel),
            disabled: false,
            title: defaultOffered?.reason ?? ''
          };
    const models = offer.models.map(model => ({
      value: model.id,
      label: model.usable ? model.id : trans.__('%1 (unavailable)', model.id),
      disabled: !model.usable,
      title: model.reason ?? ''
    }));
    const missing: IOptionSpec[] =
      chosen !== null && !byId.has(chosen)
        ? [
            {
              value: chosen,
              label: trans.__('%1 (not offered)', chosen),
              disabled: true,
              title: trans.__(
                'This endpoint no longer offers this model: choose another.'
              )
            }
          ]
        : [];
    return [first, ...models, ...missing];
  }

  /** What is chosen, why some models cannot be, the problems, the lock. */
  private _tooltip(
    offer: IModelOffer,
    options: IOptionSpec[],
    value: string
  ): string {
    const trans = this._trans;
    const shown = options.find(option => option.value === value);
    const lines = [
      trans.__('Model of this conversation: %1', shown?.label ?? value),
      ...offer.models
        .filter(model => !model.usable)
        .map(model =>
          trans.__(
            '%1 cannot be used: %2',
            model.id,
            model.reason ?? trans.__('the endpoint gives no reason')
          )
        ),
      ...offer.problems,
      this._choice.blocked ??
        trans.__('Choose the model of this conversation’s next messages.')
    ];
    return lines.join('\n');
  }

  /** The options written last, to write them only when they change. */
  private _optionsKey = '';
}

function optionOf(spec: IOptionSpec): HTMLOptionElement {
  const option = new Option(spec.label, spec.value);
  option.disabled = spec.disabled;
  if (spec.title) {
    option.title = spec.title;
  }
  return option;
}
