/**
 * How context is put into words: the chips above the composer (from what
 * the workspace shows) and the record under each sent message (from the
 * fields that were sent).
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { AttachmentKind, IContextAttachment } from '../../wire/turn';
import type { IAttachmentDraft } from '../../context/attachments';
import { capSelection } from '../../context/capped-text';
import {
  type ContextKind,
  type IWorkspaceSnapshot,
  placeOfMetadata,
  type SelectionPlace
} from '../../context/workspace';
import type { ITurnContext } from '../../wire/turn';

/** One piece of context as a chip shows it. */
export interface IContextWords {
  kind: ContextKind | AttachmentKind;
  /** What it is: "Folder", "Notebook", "Cell"… */
  label: string;
  /** Which: "notes", "analysis.ipynb", "3 of analysis.ipynb"… */
  value: string;
  /** Said when the selection is longer than what is sent. */
  note: string | null;
  /** The full description, for the tooltip and screen readers. */
  title: string;
}

export function basename(path: string): string {
  return path.split('/').filter(Boolean).pop() ?? path;
}

/** "cell 3" (cells counted from 1), "line 4", "lines 4–9". */
export function placeWords(
  place: SelectionPlace,
  trans: TranslationBundle
): string {
  if (place.kind === 'cell') {
    return trans.__('cell %1', place.index + 1);
  }
  return place.start === place.end
    ? trans.__('line %1', place.start)
    : trans.__('lines %1–%2', place.start, place.end);
}

/** The words of a chip for `kind`, or null when the workspace has none. */
export function chipWords(
  snapshot: IWorkspaceSnapshot,
  kind: ContextKind,
  trans: TranslationBundle
): IContextWords | null {
  const documentName = snapshot.document
    ? basename(snapshot.document.path ?? snapshot.document.title)
    : null;
  switch (kind) {
    case 'directory': {
      const directory = snapshot.directory;
      return directory
        ? {
            kind,
            label: trans.__('Folder'),
            value: basename(directory),
            note: null,
            title: trans.__('Current directory: %1', directory)
          }
        : null;
    }
    case 'document': {
      const document = snapshot.document;
      if (!document) {
        return null;
      }
      const label =
        document.kind === 'notebook'
          ? trans.__('Notebook')
          : document.kind === 'file'
            ? trans.__('File')
            : trans.__('Open');
      return {
        kind,
        label,
        value: documentName!,
        note: null,
        title: trans.__('Focused document: %1', document.path ?? document.title)
      };
    }
    case 'selection': {
      const selection = snapshot.selection;
      if (!selection) {
        return null;
      }
      const where = placeWords(selection.place, trans);
      const of = documentName
        ? trans.__('%1 of %2', where, documentName)
        : where;
      const capped = capSelection(selection.text);
      const note =
        capped.kept < capped.total
          ? trans.__(
              'capped: first %1 of %2 characters',
              capped.kept.toLocaleString(),
              capped.total.toLocaleString()
            )
          : null;
      const label = selection.wholeCell
        ? trans.__('Active cell')
        : trans.__('Selection');
      return {
        kind,
        label,
        value: of,
        note,
        title: trans.__(
          '%1: %2, %3 characters%4',
          label,
          of,
          selection.text.length.toLocaleString(),
          note ? ` (${note})` : ''
        )
      };
    }
  }
}

/** "Error", "Output", "Image", "Variables", "File", "Notebook", "Cell". */
function attachmentLabel(
  kind: AttachmentKind,
  trans: TranslationBundle
): string {
  switch (kind) {
    case 'error':
      return trans.__('Error');
    case 'output':
      return trans.__('Output');
    case 'image':
      return trans.__('Image');
    case 'variables':
      return trans.__('Variables');
    case 'file':
      return trans.__('File');
    case 'notebook':
      return trans.__('Notebook');
    case 'cell':
      return trans.__('Cell');
  }
}

/** "error in cell 3 of a.ipynb", as the record under a message says it. */
function attachmentValue(
  { kind, source }: IContextAttachment,
  trans: TranslationBundle
): string {
  switch (kind) {
    case 'error':
      return trans.__('error in %1', source);
    case 'output':
      return trans.__('output of %1', source);
    case 'image':
      return trans.__('image from %1', source);
    case 'variables':
      return trans.__('variables of %1', source);
    case 'file':
    case 'notebook':
      return source;
    case 'cell':
      return trans.__('source of %1', source);
  }
}

/** The words of an attachment's chip, with its cap when it was cut. */
export function attachmentWords(
  { attachment, kept, total, display }: IAttachmentDraft,
  trans: TranslationBundle
): IContextWords {
  const label = attachmentLabel(attachment.kind, trans);
  const note =
    kept < total
      ? trans.__(
          'capped: first %1 of %2 characters',
          kept.toLocaleString(),
          total.toLocaleString()
        )
      : null;
  return {
    kind: attachment.kind,
    label,
    // "cell 2 of notes/a.ipynb" shows as "cell 2 of a.ipynb"; the title has it all.
    value: display ?? attachment.source.replace(/\S*\/(?=[^/\s]+$)/, ''),
    note,
    title: trans.__(
      '%1: %2, %3 characters%4',
      label,
      attachment.source,
      total.toLocaleString(),
      note ? ` (${note})` : ''
    )
  };
}

/** One line of the record of what went with a message. */
export interface IContextRecordLine {
  label: string;
  value: string;
  /** The selected text, shown when the record is opened. */
  text?: string;
}

/** What went with a message, from the fields that were sent. */
export function contextRecord(
  context: ITurnContext,
  trans: TranslationBundle
): IContextRecordLine[] {
  const lines: IContextRecordLine[] = [];
  if (context.current_directory) {
    lines.push({
      label: trans.__('Folder'),
      value: context.current_directory
    });
  }
  if (context.focused_widget) {
    lines.push({
      label: trans.__('Document'),
      value: context.focused_widget
    });
  }
  if (context.selected_text) {
    const place = placeOfMetadata(context.selection_metadata);
    lines.push({
      label: trans.__('Selection'),
      value: place
        ? placeWords(place, trans)
        : trans.__('%1 characters', context.selected_text.length),
      text: context.selected_text
    });
  }
  for (const attachment of context.attachments ?? []) {
    lines.push({
      label: attachmentLabel(attachment.kind, trans),
      value: attachmentValue(attachment, trans),
      text: attachment.text
    });
  }
  return lines;
}
