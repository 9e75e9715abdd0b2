/**
 * Notebook cells for `@cell 3` mentions and for cells dragged onto the
 * message box (docs/protocol.md §6.2, kind `cell`): read from the open
 * notebook's cell widgets, so what is sent is what the user sees now,
 * saved or not.
 */
import type { IAttachmentDraft } from '../context/attachments';
import { cellAttachment, type ICellText } from '../context/mentions';

/** The part of a cell widget read here. */
export interface IMentionCellPort {
  readonly model: {
    readonly type: string;
    readonly sharedModel: { getSource(): string };
  };
}

/** The part of a notebook panel read here (`NotebookPanel`). */
export interface IMentionNotebookPort {
  readonly context: { readonly path: string };
  readonly content: { readonly widgets: readonly IMentionCellPort[] };
}

/** The cells of `panel`, in order. */
export function notebookCells(panel: IMentionNotebookPort): ICellText[] {
  return panel.content.widgets.map(cell => ({
    cellType: cell.model.type,
    source: cell.model.sharedModel.getSource()
  }));
}

/** Cell `index` of `panel` as an attachment, or null when it has no such cell. */
export function cellAt(
  panel: IMentionNotebookPort,
  index: number
): IAttachmentDraft | null {
  const cell = panel.content.widgets[index];
  return cell
    ? cellAttachment(
        index,
        panel.context.path,
        cell.model.sharedModel.getSource()
      )
    : null;
}

/**
 * Cells dragged from a notebook (the drag's `source` is its `Notebook`, the
 * `internal:cells` data its cell widgets) as attachments, numbered where
 * they stand in the notebook of `panels` they come from.
 */
export function droppedCells(
  source: unknown,
  cells: readonly unknown[],
  panels: Iterable<IMentionNotebookPort>
): IAttachmentDraft[] {
  for (const panel of panels) {
    if (panel.content !== source) {
      continue;
    }
    const widgets: readonly unknown[] = panel.content.widgets;
    return cells
      .map(cell => widgets.indexOf(cell))
      .filter(index => index >= 0)
      .sort((a, b) => a - b)
      .map(index => cellAt(panel, index)!);
  }
  return [];
}
