import type { TranslationBundle } from '@jupyterlab/translation';
import type { IPlanItem, ITodo } from '../../model/conversation/plan';

/** The words for a to-do's status, for screen readers and unknown statuses. */
export function statusWords(status: string, trans: TranslationBundle): string {
  switch (status) {
    case 'completed':
      return trans.__('done');
    case 'in_progress':
      return trans.__('in progress');
    case 'pending':
      return trans.__('to do');
    default:
      return status;
  }
}

/** "2 of 4 done". */
export function doneCount(
  items: readonly ITodo[],
  trans: TranslationBundle
): string {
  const done = items.filter(item => item.status === 'completed').length;
  return trans.__('%1 of %2 done', done, items.length);
}

/**
 * A to-do list as a checklist: a box for each item (checked when done, a
 * play mark while in progress), the status also in words, never by colour
 * alone. Items that changed since the previous list are marked.
 */
export function renderChecklist(
  items: readonly (ITodo | IPlanItem)[],
  trans: TranslationBundle
): HTMLUListElement {
  const list = document.createElement('ul');
  list.className = 'jp-AgentPanel-checklist';
  for (const item of items) {
    const row = document.createElement('li');
    row.className = 'jp-AgentPanel-checklistItem';
    row.dataset.status = item.status;
    const change = 'change' in item ? item.change : null;
    if (change) {
      row.dataset.change = change;
    }
    const mark = document.createElement('span');
    mark.className = 'jp-AgentPanel-checkMark';
    mark.setAttribute('aria-hidden', 'true');
    mark.textContent =
      item.status === 'completed'
        ? '☑'
        : item.status === 'in_progress'
          ? '▶'
          : '☐';
    const text = document.createElement('span');
    text.className = 'jp-AgentPanel-checklistText';
    text.textContent = item.content;
    const status = document.createElement('span');
    status.className = 'jp-AgentPanel-checklistStatus';
    status.textContent = statusWords(item.status, trans);
    // Pending is the default: said only to screen readers.
    status.classList.toggle(
      'jp-AgentPanel-srOnly',
      item.status === 'pending' || item.status === 'completed'
    );
    row.append(mark, text, status);
    list.append(row);
  }
  return list;
}
