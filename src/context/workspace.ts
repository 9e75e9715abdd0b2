/**
 * What the workspace can tell the agent with a message (the folder, the
 * document, the selection), and how it goes in a turn's context. Pure: no
 * DOM, no JupyterLab imports.
 *
 * The wire form is the LangStage HTTP convention (docs/protocol.md §6.2), which
 * the server extension and the kernel helper render as the trailing context
 * block (`jupyterlab_agent_panel/context.py`): `selection_metadata` is
 * `cell_<index>` (0-based cell index) for a notebook cell, `line_<n>` or
 * `lines_<a>-<b>` (1-based) for a file editor. The panel shows cells 1-based
 * ("cell 3" is index 2), as people count them.
 */
import type { ITurnContext } from '../wire/turn';
import type { IAttachmentDraft } from './attachments';
import { capSelection } from './capped-text';

export type ContextKind = 'directory' | 'document' | 'selection';

export const CONTEXT_KINDS: readonly ContextKind[] = [
  'directory',
  'document',
  'selection'
];

/** Which kinds of context go with a message unless removed from it. */
export type ContextDefaults = Record<ContextKind, boolean>;

export const DEFAULT_CONTEXT_DEFAULTS: ContextDefaults = {
  directory: true,
  document: true,
  selection: true
};

/** The document the user is looking at. */
export interface IDocumentRef {
  /** Its path relative to the Jupyter root; null for a non-document (Launcher). */
  path: string | null;
  /** Its tab title. */
  title: string;
  kind: 'notebook' | 'file' | 'other';
}

/** Where selected text comes from. */
export type SelectionPlace =
  | { kind: 'cell'; index: number }
  | { kind: 'lines'; start: number; end: number };

export interface ISelectionRef {
  /** The whole selected text (capped only when sent). */
  text: string;
  place: SelectionPlace;
  /** The whole active cell (nothing was selected in it). */
  wholeCell: boolean;
}

/** What the workspace shows at one moment. */
export interface IWorkspaceSnapshot {
  /** The file browser's folder relative to the Jupyter root ('' is the root). */
  directory: string | null;
  document: IDocumentRef | null;
  selection: ISelectionRef | null;
  /** What the user may attach with one click: the error a cell just raised. */
  offered?: IAttachmentDraft[];
}

export const EMPTY_SNAPSHOT: IWorkspaceSnapshot = {
  directory: null,
  document: null,
  selection: null
};

/** "cell 3 of analysis.ipynb": where a cell's output comes from (cells counted from 1). */
export function cellSource(
  index: number,
  document: IDocumentRef | null
): string {
  const name = document?.path ?? document?.title;
  return name ? `cell ${index + 1} of ${name}` : `cell ${index + 1}`;
}

/** A position in an editor: 0-based line and column (CodeEditor's form). */
export interface IEditorPosition {
  line: number;
  column: number;
}

export interface IEditorRange {
  start: IEditorPosition;
  end: IEditorPosition;
}

/** The offset of `position` in `source`, clamped to the text. */
export function offsetAt(source: string, position: IEditorPosition): number {
  let offset = 0;
  for (let line = 0; line < position.line; line++) {
    const next = source.indexOf('\n', offset);
    if (next === -1) {
      return source.length;
    }
    offset = next + 1;
  }
  const lineEnd = source.indexOf('\n', offset);
  const end = lineEnd === -1 ? source.length : lineEnd;
  return Math.min(offset + Math.max(position.column, 0), end);
}

/** The text `range` covers, whichever way it was selected. */
export function textInRange(source: string, range: IEditorRange): string {
  const a = offsetAt(source, range.start);
  const b = offsetAt(source, range.end);
  return source.slice(Math.min(a, b), Math.max(a, b));
}

/**
 * The selection in notebook cell `index`: the selected text, or the whole
 * cell when nothing is selected (null when the cell is blank).
 */
export function cellSelection(
  source: string,
  range: IEditorRange | null,
  index: number
): ISelectionRef | null {
  const place: SelectionPlace = { kind: 'cell', index };
  const selected = range ? textInRange(source, range) : '';
  if (selected.trim()) {
    return { text: selected, place, wholeCell: false };
  }
  return source.trim() ? { text: source, place, wholeCell: true } : null;
}

/** The selection in a file editor with its 1-based lines, or null when empty. */
export function editorSelection(
  source: string,
  range: IEditorRange | null
): ISelectionRef | null {
  const selected = range ? textInRange(source, range) : '';
  if (!range || !selected.trim()) {
    return null;
  }
  const { start, end } = range;
  const [from, to] =
    start.line < end.line ||
    (start.line === end.line && start.column <= end.column)
      ? [start, end]
      : [end, start];
  // A selection that ends at the start of a line does not include that line.
  const last = to.line > from.line && to.column === 0 ? to.line - 1 : to.line;
  return {
    text: selected,
    place: { kind: 'lines', start: from.line + 1, end: last + 1 },
    wholeCell: false
  };
}

/** The `selection_metadata` value for a place. */
export function selectionMetadata(place: SelectionPlace): string {
  if (place.kind === 'cell') {
    return `cell_${place.index}`;
  }
  return place.start === place.end
    ? `line_${place.start}`
    : `lines_${place.start}-${place.end}`;
}

/** A `selection_metadata` value read back (for the transcript's record). */
export function placeOfMetadata(
  metadata: string | undefined
): SelectionPlace | null {
  const cell = /^cell_(\d+)$/.exec(metadata ?? '');
  if (cell) {
    return { kind: 'cell', index: Number(cell[1]) };
  }
  const lines = /^lines?_(\d+)(?:-(\d+))?$/.exec(metadata ?? '');
  if (lines) {
    const start = Number(lines[1]);
    return { kind: 'lines', start, end: Number(lines[2] ?? start) };
  }
  return null;
}

/** Whether a snapshot has something to say for `kind`. */
export function hasContext(
  snapshot: IWorkspaceSnapshot,
  kind: ContextKind
): boolean {
  switch (kind) {
    case 'directory':
      // The root is what every path is relative to: nothing to say.
      return !!snapshot.directory;
    case 'document':
      return snapshot.document !== null;
    case 'selection':
      return snapshot.selection !== null;
  }
}

/**
 * The context fields for the kinds `included`, or null when none applies.
 * The selection is capped (see `capSelection`).
 */
export function turnContextOf(
  snapshot: IWorkspaceSnapshot,
  included: (kind: ContextKind) => boolean
): ITurnContext | null {
  const context: ITurnContext = {};
  const use = (kind: ContextKind) =>
    included(kind) && hasContext(snapshot, kind);
  if (use('directory')) {
    context.current_directory = snapshot.directory!;
  }
  if (use('document')) {
    const document = snapshot.document!;
    context.focused_widget = document.path ?? document.title;
  }
  if (use('selection')) {
    const selection = snapshot.selection!;
    context.selected_text = capSelection(selection.text).text;
    context.selection_metadata = selectionMetadata(selection.place);
  }
  return Object.keys(context).length > 0 ? context : null;
}
