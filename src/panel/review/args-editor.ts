import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import { errorMessage, isObject } from '../../wire/json';
import type { IActionRequest } from '../../wire/types';
import { diffArgs, IArgChange } from './args-diff';
import { formFields, IArgField } from './args-schema';
import { prettyJson } from '../common/format';

export type ArgsReading =
  { ok: true; args: unknown } | { ok: false; error: string };

/** An inline editor of an action's arguments, validated as the user types. */
export interface IArgsEditor extends IDisposable {
  readonly node: HTMLElement;
  /** The edited arguments, or why they cannot be sent. */
  read(): ArgsReading;
  focus(): void;
}

/**
 * A form when the action has a simple `args_schema`, else a JSON editor.
 * Both show the changes against the original arguments and call
 * `onChange` after each edit.
 */
export function createArgsEditor(
  trans: TranslationBundle,
  action: IActionRequest,
  onChange: () => void
): IArgsEditor {
  return createJsonEditor(trans, {
    schema: action.argsSchema,
    original: action.args,
    onChange
  });
}

export interface IJsonEditorOptions {
  /** The JSON Schema of the value; a simple object schema makes a form. */
  schema: unknown;
  /** The value to start from. */
  original: unknown;
  onChange: () => void;
  /** Why a value that parsed cannot be sent, or null when it can. */
  validate?: (value: unknown) => string | null;
  /** Show the changes against `original` (default: yes). */
  showChanges?: boolean;
  /** The accessible name of the JSON text (default: the edited arguments). */
  label?: string;
}

/**
 * An editor of a JSON value: a form when the schema is a simple object
 * schema (the review rows' one), else JSON text.
 */
export function createJsonEditor(
  trans: TranslationBundle,
  options: IJsonEditorOptions
): IArgsEditor {
  const fields = formFields(options.schema, options.original);
  return fields
    ? new SchemaArgsForm(trans, options, fields)
    : new JsonArgsEditor(trans, options);
}

/** Shared parts: the error line, the change list and the input listener. */
abstract class ArgsEditorBase implements IArgsEditor {
  constructor(
    protected readonly trans: TranslationBundle,
    private readonly _options: IJsonEditorOptions,
    className: string
  ) {
    this.original = _options.original;
    this.node = document.createElement('div');
    this.node.className = `jp-AgentPanel-argsEditor ${className}`;
    this._error = document.createElement('div');
    this._error.className = 'jp-AgentPanel-reviewError';
    this._error.setAttribute('aria-live', 'polite');
    this._changes = document.createElement('div');
    this._changes.className = 'jp-AgentPanel-diff';
    this.node.addEventListener('input', this);
    this.node.addEventListener('change', this);
  }

  readonly node: HTMLDivElement;

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  protected readonly original: unknown;

  /** The value as typed, or why it is not one. */
  protected abstract parse(): ArgsReading;
  abstract focus(): void;

  read(): ArgsReading {
    const reading = this.parse();
    const problem = reading.ok
      ? (this._options.validate?.(reading.args) ?? null)
      : null;
    return problem === null ? reading : { ok: false, error: problem };
  }

  handleEvent(): void {
    this.refresh();
    this._options.onChange();
  }

  /** Show the validation error or the changes for the current input. */
  refresh(): void {
    const reading = this.read();
    this._error.textContent = reading.ok ? '' : reading.error;
    this._error.hidden = reading.ok;
    this._changes.hidden = !reading.ok || this._options.showChanges === false;
    if (reading.ok) {
      renderChanges(
        this._changes,
        diffArgs(this.original, reading.args),
        this.trans
      );
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this.node.removeEventListener('input', this);
    this.node.removeEventListener('change', this);
  }

  /** Append the error line and change list after the inputs. */
  protected finish(): void {
    this.node.append(this._error, this._changes);
    this.refresh();
  }

  private readonly _error: HTMLDivElement;
  private readonly _changes: HTMLDivElement;
  private _isDisposed = false;
}

/** The arguments as JSON text; an object stays an object. */
class JsonArgsEditor extends ArgsEditorBase {
  constructor(trans: TranslationBundle, options: IJsonEditorOptions) {
    super(trans, options, 'jp-AgentPanel-argsJson');
    const { original } = options;
    this._input = document.createElement('textarea');
    this._input.className = 'jp-AgentPanel-reviewInput';
    this._input.spellcheck = false;
    this._input.value = prettyJson(original ?? {});
    this._input.rows = Math.min(12, this._input.value.split('\n').length + 1);
    this._input.setAttribute(
      'aria-label',
      options.label ?? trans.__('Edited arguments (JSON)')
    );
    this.node.appendChild(this._input);
    this.finish();
  }

  protected parse(): ArgsReading {
    let args: unknown;
    try {
      args = JSON.parse(this._input.value);
    } catch (error) {
      return {
        ok: false,
        error: this.trans.__('Not valid JSON: %1', errorMessage(error))
      };
    }
    const wantsObject =
      this.original === undefined ||
      this.original === null ||
      (typeof this.original === 'object' && !Array.isArray(this.original));
    if (wantsObject && !isObject(args)) {
      return {
        ok: false,
        error: this.trans.__('The arguments must be a JSON object { … }.')
      };
    }
    return { ok: true, args };
  }

  focus(): void {
    this._input.focus();
  }

  private readonly _input: HTMLTextAreaElement;
}

type FieldInput = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/** One input per schema property. */
class SchemaArgsForm extends ArgsEditorBase {
  constructor(
    trans: TranslationBundle,
    options: IJsonEditorOptions,
    private readonly _fields: IArgField[]
  ) {
    super(trans, options, 'jp-AgentPanel-argsForm');
    this._values = (options.original ?? {}) as Record<string, unknown>;
    for (const field of _fields) {
      const input = this._inputFor(field, this._values[field.name]);
      this._inputs.set(field.name, input);
      const row = document.createElement('label');
      row.className = 'jp-AgentPanel-field';
      const title = document.createElement('span');
      title.className = 'jp-AgentPanel-fieldTitle';
      title.textContent = field.required
        ? trans.__('%1 (required)', field.title)
        : field.title;
      row.append(title, input);
      if (field.description) {
        const description = document.createElement('span');
        description.className = 'jp-AgentPanel-fieldDescription';
        description.textContent = field.description;
        row.appendChild(description);
      }
      this.node.appendChild(row);
    }
    this.finish();
  }

  protected parse(): ArgsReading {
    const args: Record<string, unknown> = {};
    for (const field of this._fields) {
      const input = this._inputs.get(field.name)!;
      const had = field.name in this._values;
      if (field.type === 'boolean') {
        const checked = (input as HTMLInputElement).checked;
        if (had || field.required || checked) {
          args[field.name] = checked;
        }
        continue;
      }
      const text = input.value;
      if (text === '' && !had) {
        if (field.required) {
          return {
            ok: false,
            error: this.trans.__('"%1" is required.', field.title)
          };
        }
        continue;
      }
      if (field.type === 'string') {
        args[field.name] = text;
        continue;
      }
      const number = Number(text);
      if (text.trim() === '' || !Number.isFinite(number)) {
        return {
          ok: false,
          error: this.trans.__('"%1" must be a number.', field.title)
        };
      }
      if (field.type === 'integer' && !Number.isInteger(number)) {
        return {
          ok: false,
          error: this.trans.__('"%1" must be a whole number.', field.title)
        };
      }
      args[field.name] = number;
    }
    return { ok: true, args };
  }

  focus(): void {
    this._inputs.values().next().value?.focus();
  }

  private _inputFor(field: IArgField, value: unknown): FieldInput {
    if (field.options) {
      const select = document.createElement('select');
      if (!field.required) {
        select.appendChild(new Option('', ''));
      }
      for (const option of field.options) {
        select.appendChild(new Option(String(option), String(option)));
      }
      select.value = value === undefined ? '' : String(value);
      return select;
    }
    if (field.type === 'boolean') {
      const checkbox = document.createElement('input');
      checkbox.type = 'checkbox';
      checkbox.checked = value === true;
      return checkbox;
    }
    const text = value === undefined ? '' : String(value);
    if (field.type === 'string' && (text.includes('\n') || text.length > 60)) {
      const area = document.createElement('textarea');
      area.className = 'jp-AgentPanel-reviewInput';
      area.rows = Math.min(8, text.split('\n').length + 1);
      area.value = text;
      return area;
    }
    const input = document.createElement('input');
    input.type = field.type === 'string' ? 'text' : 'number';
    input.className = 'jp-AgentPanel-fieldInput';
    if (field.type === 'integer') {
      input.step = '1';
    } else if (field.type === 'number') {
      input.step = 'any';
    }
    input.value = text;
    return input;
  }

  private readonly _values: Record<string, unknown>;
  private readonly _inputs = new Map<string, FieldInput>();
}

/** The list of changes, in words and symbols (not colour alone). */
export function renderChanges(
  host: HTMLElement,
  changes: IArgChange[],
  trans: TranslationBundle
): void {
  const title = document.createElement('div');
  title.className = 'jp-AgentPanel-label';
  if (changes.length === 0) {
    title.textContent = trans.__('No changes yet.');
    host.replaceChildren(title);
    return;
  }
  title.textContent = trans.__('Changes:');
  const list = document.createElement('ul');
  for (const change of changes) {
    const item = document.createElement('li');
    item.dataset.kind = change.kind;
    const name = change.key || trans.__('(whole value)');
    switch (change.kind) {
      case 'added':
        item.textContent = trans.__(
          '+ %1 added: %2',
          name,
          shortJson(change.after)
        );
        break;
      case 'removed':
        item.textContent = trans.__(
          '− %1 removed (was %2)',
          name,
          shortJson(change.before)
        );
        break;
      default:
        item.textContent = trans.__(
          '~ %1 changed: %2 → %3',
          name,
          shortJson(change.before),
          shortJson(change.after)
        );
    }
    list.appendChild(item);
  }
  host.replaceChildren(title, list);
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
