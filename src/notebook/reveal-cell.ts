/**
 * Shows the cell a tool card names ("cell 3 of analysis.ipynb"): opens its
 * notebook when it is not open, brings it to the front and makes the cell
 * the active one, scrolled into view.
 */
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { CommandRegistry } from '@lumino/commands';

export interface ICellToReveal {
  path: string;
  cellId: string;
}

/** Whether `args` name a cell to show. */
export function isCellToReveal(args: unknown): args is ICellToReveal {
  const cell = args as Partial<ICellToReveal> | null;
  return typeof cell?.path === 'string' && typeof cell.cellId === 'string';
}

/** Show `cell`; false when its notebook has no such cell (any more). */
export async function revealCell(
  cell: ICellToReveal,
  tracker: INotebookTracker,
  commands: CommandRegistry,
  activate: (id: string) => void
): Promise<boolean> {
  let panel = tracker.find(open => open.context.path === cell.path);
  if (!panel) {
    panel = (await commands.execute('docmanager:open', {
      path: cell.path,
      factory: 'Notebook'
    })) as NotebookPanel;
  }
  await panel.context.ready;
  activate(panel.id);
  const notebook = panel.content;
  const index = notebook.widgets.findIndex(
    widget => widget.model.id === cell.cellId
  );
  if (index < 0) {
    return false;
  }
  notebook.activeCellIndex = index;
  notebook.mode = 'command';
  await notebook.scrollToItem(index);
  return true;
}
