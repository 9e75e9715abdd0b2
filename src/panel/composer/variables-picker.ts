import type { TranslationBundle } from '@jupyterlab/translation';
import type { IVariablesListing } from '../../model/conversation/composer-context';

/**
 * The picker the "Variables…" chip opens under the chips: one checkbox per
 * kernel variable with its type, shape or length and dtypes, then Attach /
 * Cancel (`data-action`, handled by the chips view). DOM only.
 */
export function listingPicker(
  listing: IVariablesListing,
  trans: TranslationBundle
): HTMLElement {
  const picker = emptyPicker(trans);
  const list = document.createElement('ul');
  for (const variable of listing.variables) {
    const item = document.createElement('li');
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = variable.name;
    const name = document.createElement('code');
    name.textContent = variable.name;
    const facts = [variable.type];
    if (variable.shape) {
      facts.push(variable.shape.join('×'));
    } else if (variable.length !== undefined) {
      facts.push(trans.__('length %1', variable.length));
    }
    if (variable.dtypes) {
      facts.push(
        Object.entries(variable.dtypes)
          .map(([column, dtype]) => `${column}: ${dtype}`)
          .join(', ')
      );
    } else if (variable.dtype) {
      facts.push(variable.dtype);
    }
    const details = document.createElement('span');
    details.className = 'jp-AgentPanel-variableFacts';
    details.textContent = facts.join(' · ');
    label.append(box, name, details);
    item.append(label);
    list.append(item);
  }
  if (listing.variables.length === 0) {
    const empty = document.createElement('li');
    empty.textContent = trans.__('The kernel has no user variables.');
    list.append(empty);
  }
  picker.append(list);
  if (listing.omitted.length > 0) {
    picker.append(
      note(
        trans.__(
          'Left out: %1',
          listing.omitted.map(o => `${o.name} (${o.reason})`).join(', ')
        )
      )
    );
  }
  picker.append(
    actionButton('attach-variables', trans.__('Attach')),
    actionButton('close-variables', trans.__('Cancel'))
  );
  return picker;
}

/** The picker with a line of text: listing, or why the kernel could not. */
export function notePicker(
  text: string,
  trans: TranslationBundle
): HTMLElement {
  const picker = emptyPicker(trans);
  picker.append(note(text), actionButton('close-variables', trans.__('Close')));
  return picker;
}

/** The names of the variables ticked in `picker`. */
export function checkedNames(picker: HTMLElement): Set<string> {
  return new Set(
    Array.from(picker.querySelectorAll<HTMLInputElement>('input:checked')).map(
      input => input.value
    )
  );
}

function emptyPicker(trans: TranslationBundle): HTMLElement {
  const picker = document.createElement('div');
  picker.className = 'jp-AgentPanel-variablesPicker';
  picker.setAttribute('role', 'group');
  picker.setAttribute('aria-label', trans.__('Kernel variables'));
  return picker;
}

function note(text: string): HTMLElement {
  const line = document.createElement('div');
  line.className = 'jp-AgentPanel-variablesNote';
  line.textContent = text;
  return line;
}

function actionButton(action: string, label: string): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'jp-Button jp-mod-styled';
  button.dataset.action = action;
  button.textContent = label;
  return button;
}
