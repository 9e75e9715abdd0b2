/**
 * What a call of an agent's file tool would change (docs/protocol.md §16.6):
 * deepagents' `write_file` (`file_path`, `content`), `edit_file`
 * (`file_path`, `old_string`, `new_string`, `replace_all`) and `delete`
 * (`file_path`), whose paths start with `/` at the Jupyter root. Pure: the
 * panel reads the file and shows the result as a diff.
 */
import { isObject } from './json';

export const FILE_TOOLS = ['write_file', 'edit_file', 'delete'];

/** What reading the file gave. */
export type FileText =
  | { kind: 'text'; text: string }
  | { kind: 'missing' }
  | { kind: 'unreadable'; reason: string };

export interface IFileChange {
  /** From the Jupyter root, without the leading `/`. */
  path: string;
  before: string;
  after: string;
  /**
   * Why the diff shows only the part that changes rather than the whole
   * file: it could not be read (`reason` says why), or it does not hold the
   * text an edit replaces; null when the diff is of the whole file.
   */
  partial: { why: 'unreadable'; reason: string } | { why: 'no_match' } | null;
}

/** The file a file tool's call names, from the Jupyter root; null when it is not one. */
export function fileToolPath(
  name: string | null,
  args: unknown
): string | null {
  if (!name || !FILE_TOOLS.includes(name) || !isObject(args)) {
    return null;
  }
  const path = args.file_path;
  return typeof path === 'string' && path ? path.replace(/^\/+/, '') : null;
}

/** The change the call would make to `current`, or null when it names no file. */
export function fileChange(
  name: string | null,
  args: unknown,
  current: FileText
): IFileChange | null {
  const path = fileToolPath(name, args);
  if (path === null || !isObject(args)) {
    return null;
  }
  const text = current.kind === 'text' ? current.text : '';
  const unread: IFileChange['partial'] =
    current.kind === 'unreadable'
      ? { why: 'unreadable', reason: current.reason }
      : null;
  switch (name) {
    case 'write_file':
      return {
        path,
        before: text,
        after: string(args.content),
        partial: unread
      };
    case 'delete':
      return { path, before: text, after: '', partial: unread };
    default:
      return edited(path, args, current);
  }
}

function edited(
  path: string,
  args: Record<string, unknown>,
  current: FileText
): IFileChange {
  const oldString = string(args.old_string);
  const newString = string(args.new_string);
  const part = (partial: IFileChange['partial']) => ({
    path,
    before: oldString,
    after: newString,
    partial
  });
  if (current.kind === 'unreadable') {
    return part({ why: 'unreadable', reason: current.reason });
  }
  const text = current.kind === 'text' ? current.text : '';
  if (!oldString || !text.includes(oldString)) {
    return part({ why: 'no_match' });
  }
  const after =
    args.replace_all === true
      ? text.split(oldString).join(newString)
      : text.replace(oldString, () => newString);
  return { path, before: text, after, partial: null };
}

function string(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
