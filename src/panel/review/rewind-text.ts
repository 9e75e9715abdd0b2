/** What the rewind card says of a cell and of the outcome (docs/protocol.md §12.11). */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IRewindCell } from '../../contracts/notebook-changes';
import type { IRewindOffer } from '../../model/conversation/rewinds';

/** The notebook by its name and the cell as JupyterLab numbers it, and what happens to it. */
export function cellWhere(trans: TranslationBundle, cell: IRewindCell): string {
  const notebook = cell.path.split('/').pop() ?? cell.path;
  const where = trans.__('%1, cell %2', notebook, cell.index + 1);
  switch (cell.action) {
    case 'remove':
      return trans.__('%1: remove the cell the agent inserted', where);
    case 'restore':
      return trans.__('%1: restore its source from before', where);
    case 'reinsert':
      return trans.__('%1: put back the cell the agent deleted', where);
    default:
      return where;
  }
}

/** Why a cell is not checked, or cannot be; null for a cell that just goes back. */
export function cellNote(
  trans: TranslationBundle,
  cell: IRewindCell
): string | null {
  switch (cell.status) {
    case 'conflict':
      return trans.__(
        'You changed this cell after the agent did: it is not checked, so your edits stay unless you check it.'
      );
    case 'deleted':
      return trans.__(
        'You deleted this cell after the agent changed it: nothing to restore.'
      );
    case 'closed':
      return trans.__('Open %1 to restore this cell.', cell.path);
    default:
      return null;
  }
}

/** What happened, once the card was answered. */
export function outcomeText(
  trans: TranslationBundle,
  offer: IRewindOffer
): string {
  switch (offer.state) {
    case 'applying':
      return trans.__('Restoring…');
    case 'kept':
      return trans.__('Kept the notebook as it is: nothing was changed.');
    case 'failed':
      return trans.__('Could not restore the notebook: %1', offer.error ?? '');
    case 'applied':
      return appliedText(trans, offer);
    default:
      return '';
  }
}

function appliedText(trans: TranslationBundle, offer: IRewindOffer): string {
  const result = offer.result;
  const restored = result?.restored.length ?? 0;
  const skipped = result?.skipped ?? [];
  const untouched = offer.plan.cells.filter(
    cell =>
      !result?.restored.includes(cell.key) &&
      !skipped.some(skip => skip.key === cell.key)
  ).length;
  const parts = [
    restored === 0
      ? trans.__('Nothing was restored.')
      : trans._n(
          'Restored %1 cell: Undo Cell Operation (Z) in the notebook takes it back.',
          'Restored %1 cells: Undo Cell Operation (Z) in the notebook takes them back in one step.',
          restored
        )
  ];
  if (untouched > 0) {
    parts.push(
      trans._n(
        '%1 cell was left as it is.',
        '%1 cells were left as they are.',
        untouched
      )
    );
  }
  for (const skip of skipped) {
    const cell = offer.plan.cells.find(planned => planned.key === skip.key);
    parts.push(
      cell
        ? trans.__('%1: %2', cellWhere(trans, cell), skip.reason)
        : skip.reason
    );
  }
  return parts.join(' ');
}
