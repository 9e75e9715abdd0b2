import { Notification } from '@jupyterlab/apputils';
import type { TranslationBundle } from '@jupyterlab/translation';
import { caretDownEmptyIcon } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';
import type { IModelOffer } from '../../contracts/models';
import type { ModelChoice } from '../../model/conversation/model-choice';
import { errorMessage } from '../../wire/json';

/** One `<option>` as it should be. */
interface IOptionSpec {
  /** '' stands for the endpoint's default (no model chosen). */
  value: string;
  label: string;
  disabled: boolean;
  title: string;
}

/**
 * The toolbar's model dropdown, next to the endpoint's and dressed the same
 * (a native `<select>` as JupyterLab's `HTMLSelect`): the model of the
 * conversation's next messages, of those its endpoint offers
 * (docs/protocol.md §16.3). Shown only when the endpoint lets the
 * conversation choose; models that cannot be used are listed disabled, with
 * the reason. Locked while a turn runs.
 */
export class ModelPicker extends Widget {
  constructor(
    private readonly _choice: ModelChoice,
    private readonly _trans: TranslationBundle
  ) {
    super();
    this.addClass('jp-HTMLSelect');
    this.addClass('jp-DefaultStyle');
    this.addClass('jp-AgentPanel-pickerBox');
    this.addClass('jp-AgentPanel-modelPickerBox');
    this._select.className = 'jp-AgentPanel-modelPicker';
    this._select.setAttribute('aria-label', _trans.__('Agent model'));
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
    _choice.changed.connect(this._render, this);
    this._render();
  }

  handleEvent(event: Event): void {
    if (event.type !== 'change') {
      return;
    }
    try {
      this._choice.choose(this._select.value || null);
    } catch (error) {
      Notification.warning(errorMessage(error), { autoClose: 5000 });
      this._render();
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._select.removeEventListener('change', this);
    this._choice.changed.disconnect(this._render, this);
    if (this._lockFrame !== null) {
      cancelAnimationFrame(this._lockFrame);
    }
    super.dispose();
  }

  /**
   * Write only what changed: JupyterLab's toolbar answers each change
   * inside it with a forced layout (see `EndpointPicker`).
   */
  private _render(): void {
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
      this._select.replaceChildren(...options.map(optionOf));
    }
    const value = chosen ?? '';
    if (this._select.value !== value) {
      this._select.value = value;
    }
    const title = this._tooltip(offer, options, value);
    if (this._select.title !== title) {
      this._select.title = title;
    }
    this._lockNextFrame();
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

  /**
   * Lock or unlock at the next animation frame, as `EndpointPicker` does:
   * not inside Send or a turn's end, where a change to `disabled` would
   * force a layout of the page. `ModelChoice.choose` refuses meanwhile.
   */
  private _lockNextFrame(): void {
    this._lockFrame ??= requestAnimationFrame(() => {
      this._lockFrame = null;
      const locked = this._choice.blocked !== null;
      if (this._select.disabled !== locked) {
        this._select.disabled = locked;
      }
    });
  }

  private readonly _select = document.createElement('select');
  /** The options written last, to write them only when they change. */
  private _optionsKey = '';
  private _lockFrame: number | null = null;
}

function optionOf(spec: IOptionSpec): HTMLOptionElement {
  const option = new Option(spec.label, spec.value);
  option.disabled = spec.disabled;
  if (spec.title) {
    option.title = spec.title;
  }
  return option;
}
