/**
 * Files and cells by mention (`@data/notes.txt`, `@cell 3`) or by drop: what
 * the completer offers for what was typed, and what the agent reads of a
 * file, a notebook or a cell (docs/protocol.md §6.2, kinds `file`,
 * `notebook`, `cell`). Pure: no DOM, no JupyterLab imports; a file is read
 * as the Jupyter contents API returns it.
 */
import {
  type IAttachmentDraft,
  joined,
  sizeWords,
  textAttachment
} from './attachments';
import { isObject } from '../wire/json';

/** `@…` being typed: where it starts in the text and what follows the `@`. */
export interface IMentionAt {
  /** The index of the `@`. */
  start: number;
  /** The text from after the `@` to the caret: "src/ut", "cell 3". */
  query: string;
}

/**
 * The mention the caret is in, or null. A mention starts with `@` at the
 * start of the text or after a space and runs to the caret without a space,
 * except that `@cell 3` keeps its one.
 */
export function mentionAt(text: string, caret: number): IMentionAt | null {
  const before = text.slice(0, caret);
  const match = /(?:^|\s)@(cell \d*|[^\s@]*)$/.exec(before);
  if (!match) {
    return null;
  }
  const query = match[1];
  return { start: caret - query.length - 1, query };
}

/** One line of the completer. */
export interface IMentionItem {
  kind: 'directory' | 'file' | 'notebook' | 'cell';
  /** What the line shows: "notes.txt", "data/", "cell 3". */
  label: string;
  /** Shown after it, dimmed: a cell's first line. */
  hint: string;
  /** A file's or folder's path from the Jupyter root; for a cell its notebook's. */
  path: string;
  /** A cell's index (0-based). */
  index?: number;
}

/** A folder entry as the contents API lists it. */
export interface IContentsEntry {
  name: string;
  path: string;
  type: string;
}

/** The most lines the completer shows. */
export const MENTION_LIMIT = 50;

/** `@src/ut`: the folder to list ("src") and the start of the name ("ut"). */
export function mentionFolder(query: string): {
  folder: string;
  prefix: string;
} {
  const slash = query.lastIndexOf('/');
  return slash === -1
    ? { folder: '', prefix: query }
    : { folder: query.slice(0, slash), prefix: query.slice(slash + 1) };
}

/**
 * The entries of a folder that match `prefix`: names starting with it
 * first, then names containing it, folders before files within each, case
 * ignored. Hidden names (a leading dot) only when the user shows them.
 */
export function fileMentions(
  entries: readonly IContentsEntry[],
  prefix: string,
  showHidden: boolean
): IMentionItem[] {
  const wanted = prefix.toLowerCase();
  const rank = (entry: IContentsEntry) => {
    const name = entry.name.toLowerCase();
    const place = name.startsWith(wanted) ? 0 : name.includes(wanted) ? 2 : -1;
    return place === -1 ? -1 : place + (entry.type === 'directory' ? 0 : 1);
  };
  return entries
    .filter(entry => showHidden || !entry.name.startsWith('.'))
    .map(entry => ({ entry, rank: rank(entry) }))
    .filter(({ rank }) => rank >= 0)
    .sort((a, b) => a.rank - b.rank || a.entry.name.localeCompare(b.entry.name))
    .slice(0, MENTION_LIMIT)
    .map(({ entry }) => ({
      kind:
        entry.type === 'directory'
          ? 'directory'
          : entry.type === 'notebook'
            ? 'notebook'
            : 'file',
      label: entry.type === 'directory' ? `${entry.name}/` : entry.name,
      hint: '',
      path: entry.path
    }));
}

/** A notebook cell as a mention reads it. */
export interface ICellText {
  cellType: string;
  source: string;
}

/**
 * The cells of notebook `path` that `query` names: every cell for "", "c",
 * "cell" or "cell "; those whose number starts with the digits of
 * "cell 1"; none for anything else. Cells are counted from 1.
 */
export function cellMentions(
  cells: readonly ICellText[],
  path: string,
  query: string
): IMentionItem[] {
  const match = /^(?:c(?:e(?:l(?:l(?: (\d*))?)?)?)?)?$/i.exec(query);
  if (!match) {
    return [];
  }
  const digits = match[1] ?? '';
  const items: IMentionItem[] = [];
  cells.forEach((cell, index) => {
    const number = String(index + 1);
    if (number.startsWith(digits) && items.length < MENTION_LIMIT) {
      items.push({
        kind: 'cell',
        label: `cell ${number}`,
        hint: firstLine(cell.source),
        path,
        index
      });
    }
  });
  return items;
}

function firstLine(source: string): string {
  return source.trimStart().split('\n', 1)[0].slice(0, 80);
}

/** "cell 3 of analysis.ipynb": where a mentioned cell comes from (counted from 1). */
export function mentionedCellSource(index: number, path: string): string {
  return path ? `cell ${index + 1} of ${path}` : `cell ${index + 1}`;
}

/** A cell's source as an attachment, capped. */
export function cellAttachment(
  index: number,
  path: string,
  source: string
): IAttachmentDraft {
  const draft = textAttachment(
    'cell',
    mentionedCellSource(index, path),
    source
  );
  const name = path.split('/').pop() || path;
  return {
    ...draft,
    display: name ? `${index + 1} of ${name}` : String(index + 1)
  };
}

/** A file as the contents API returns it with its content. */
export interface IFileModel {
  path: string;
  type: string;
  /** `text`, `base64` or `json` (a notebook); null without content. */
  format: string | null;
  mimetype?: string | null;
  size?: number | null;
  content: unknown;
}

/**
 * A notebook's cells as the agent reads them: each cell's source after a
 * marker naming its number and type (`# %% cell 2 [markdown]`).
 */
export function notebookText(content: unknown): string {
  const cells =
    isObject(content) && Array.isArray(content.cells) ? content.cells : [];
  return cells
    .map((cell, index) => {
      const type =
        isObject(cell) && typeof cell.cell_type === 'string'
          ? cell.cell_type
          : 'code';
      const source = isObject(cell) ? joined(cell.source) : '';
      return `# %% cell ${index + 1} [${type}]\n${source}`;
    })
    .join('\n\n');
}

/**
 * What the agent reads of a file it gets by name only: a binary one, or
 * one too large to read (`unread`: its content was not asked for).
 */
export function fileByNameText(
  mimetype: string | null | undefined,
  size: number | null | undefined,
  unread = false
): string {
  const type = mimetype || 'application/octet-stream';
  const bytes = typeof size === 'number' ? `, ${sizeWords(size)}` : '';
  const what = unread ? 'file too large to read' : 'binary file';
  return `[${what}: ${type}${bytes}; content not sent]`;
}

/**
 * A file as an attachment: a notebook as its cells' sources, a text file's
 * text, each capped; anything else (base64 content, or content not read)
 * by name, type and size only. Its chip shows the whole path.
 */
export function fileAttachment(file: IFileModel): IAttachmentDraft {
  let draft: IAttachmentDraft;
  if (file.type === 'notebook' && isObject(file.content)) {
    draft = textAttachment('notebook', file.path, notebookText(file.content));
  } else if (file.format === 'text' && typeof file.content === 'string') {
    draft = textAttachment('file', file.path, file.content);
  } else {
    const text = fileByNameText(file.mimetype, file.size, file.format === null);
    draft = {
      attachment: { kind: 'file', source: file.path, text },
      kept: text.length,
      total: text.length
    };
  }
  return { ...draft, display: file.path };
}
