import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import type { ITurnContext } from '../../wire/turn';
import { basename, contextRecord } from '../common/context-text';

/**
 * Under a sent message: what context went with it, in one line that opens
 * to the full values (the selected text included). Text only, never markup.
 */
export function userContextView(
  context: ITurnContext,
  trans: TranslationBundle
): Widget | null {
  const lines = contextRecord(context, trans);
  if (lines.length === 0) {
    return null;
  }
  const details = document.createElement('details');
  details.className = 'jp-AgentPanel-userContext';
  const summary = document.createElement('summary');
  summary.textContent = trans.__(
    'Sent with: %1',
    lines
      .map(line =>
        line.text === undefined ? basename(line.value) : line.value
      )
      .join(' · ')
  );
  const list = document.createElement('dl');
  for (const line of lines) {
    const term = document.createElement('dt');
    term.textContent = line.label;
    const value = document.createElement('dd');
    value.textContent = line.value;
    if (line.text !== undefined) {
      const pre = document.createElement('pre');
      pre.textContent = line.text;
      value.append(pre);
    }
    list.append(term, value);
  }
  details.append(summary, list);
  return new Widget({ node: details });
}
