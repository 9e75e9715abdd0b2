import { cellSource } from '../context/workspace';
import {
  type IAttachmentDraft,
  outputAttachment
} from '../context/attachments';
import type { IDocumentRef } from '../context/workspace';
import type { ICellPort } from './workspace-context';

/** The class of one output (with its prompt) in an output area. */
export const OUTPUT_CHILD_CLASS = 'jp-OutputArea-child';

/** The part of a notebook panel read here (`NotebookPanel`). */
export interface INotebookPanelPort {
  readonly node: HTMLElement;
  readonly context: { readonly path: string };
  readonly title: { readonly label: string };
  readonly content: {
    readonly widgets: readonly (ICellPort & { node: HTMLElement })[];
  };
}

/**
 * The output shown at `node` (an output area's child, as the context menu
 * found it) as an attachment, or null when it is no notebook output or
 * shows nothing the agent can read. The output is read from the cell's
 * model, by its place among the area's children.
 */
export function outputAtNode(
  node: HTMLElement,
  notebooks: Iterable<INotebookPanelPort>
): IAttachmentDraft | null {
  for (const panel of notebooks) {
    if (!panel.node.contains(node)) {
      continue;
    }
    const cells = panel.content.widgets;
    const index = cells.findIndex(cell => cell.node.contains(node));
    const outputs = index >= 0 ? cells[index].model.outputs?.toJSON() : null;
    const area = node.parentElement;
    if (!outputs || !area) {
      return null;
    }
    const siblings = Array.from(area.children).filter(child =>
      child.classList.contains(OUTPUT_CHILD_CLASS)
    );
    const output = outputs[siblings.indexOf(node)];
    const document: IDocumentRef = {
      path: panel.context.path,
      title: panel.title.label,
      kind: 'notebook'
    };
    return output === undefined
      ? null
      : outputAttachment(output, cellSource(index, document));
  }
  return null;
}
