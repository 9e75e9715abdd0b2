/**
 * Reads the Jupyter contents for `@` mentions and dropped files
 * (docs/protocol.md §6.2): a folder's listing for the completer, a file as
 * an attachment. Only through the contents API, so the server's rules hold:
 * hidden files are listed only if it allows them.
 */
import type { Contents } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IAttachmentDraft } from '../../context/attachments';
import type { FileText } from '../../wire/file-change';
import { errorMessage } from '../../wire/json';
import { fileAttachment, type IContentsEntry } from '../../context/mentions';

/**
 * A file larger than this is sent by name, type and size without reading
 * it: its first 4,000 characters are not worth fetching megabytes for.
 */
export const READ_LIMIT = 1024 * 1024;

/**
 * How long a folder's listing is answered again without asking the server:
 * the keystrokes of one name typed after `@folder/`.
 */
export const LISTING_FRESH_MS = 2000;

export class ContentsReader {
  constructor(
    private readonly _contents: Contents.IManager,
    private readonly _trans: TranslationBundle
  ) {}

  /** The entries of `folder` (from the Jupyter root); none when it is no folder. */
  list(folder: string): Promise<IContentsEntry[]> {
    const now = Date.now();
    const last = this._lastListing;
    if (last?.folder !== folder || now - last.at > LISTING_FRESH_MS) {
      this._lastListing = { folder, at: now, entries: this._read(folder) };
    }
    return this._lastListing!.entries;
  }

  private async _read(folder: string): Promise<IContentsEntry[]> {
    let model: Contents.IModel;
    try {
      model = await this._contents.get(folder, {
        type: 'directory',
        content: true
      });
    } catch {
      // A folder being typed ("@sr") does not exist yet: nothing to offer.
      return [];
    }
    return Array.isArray(model.content)
      ? (model.content as Contents.IModel[]).map(({ name, path, type }) => ({
          name,
          path,
          type
        }))
      : [];
  }

  /**
   * File `path` as an attachment, read now (the chip shows its cap).
   * Rejects with a sentence for the user: a folder, or the server refused.
   */
  async attachment(path: string): Promise<IAttachmentDraft> {
    const failed = (error: unknown) =>
      new Error(
        this._trans.__('Could not read %1: %2', path, errorMessage(error))
      );
    let model: Contents.IModel;
    try {
      model = await this._contents.get(path, { content: false });
    } catch (error) {
      throw failed(error);
    }
    if (model.type === 'directory') {
      throw new Error(this._trans.__('%1 is a folder, not a file.', path));
    }
    if (typeof model.size === 'number' && model.size > READ_LIMIT) {
      return fileAttachment({ ...model, format: null, content: null });
    }
    try {
      return fileAttachment(await this._contents.get(path, { content: true }));
    } catch (error) {
      throw failed(error);
    }
  }

  /**
   * File `path`'s text, for the diff of a change the agent proposes to it
   * (docs/protocol.md §16.6): missing, or unreadable with the reason (a
   * folder, over `READ_LIMIT`, not text, the server refused).
   */
  async text(path: string): Promise<FileText> {
    const trans = this._trans;
    let model: Contents.IModel;
    try {
      model = await this._contents.get(path, { content: false });
    } catch (error) {
      return isNotFound(error)
        ? { kind: 'missing' }
        : { kind: 'unreadable', reason: errorMessage(error) };
    }
    if (model.type === 'directory') {
      return { kind: 'unreadable', reason: trans.__('it is a folder') };
    }
    if (typeof model.size === 'number' && model.size > READ_LIMIT) {
      return { kind: 'unreadable', reason: trans.__('it is larger than 1 MB') };
    }
    try {
      const file = await this._contents.get(path, {
        type: 'file',
        format: 'text',
        content: true
      });
      return typeof file.content === 'string'
        ? { kind: 'text', text: file.content }
        : { kind: 'unreadable', reason: trans.__('it is not a text file') };
    } catch (error) {
      return { kind: 'unreadable', reason: errorMessage(error) };
    }
  }

  private _lastListing: {
    folder: string;
    at: number;
    entries: Promise<IContentsEntry[]>;
  } | null = null;
}

/** The contents API answered 404: there is no such file. */
function isNotFound(error: unknown): boolean {
  const response = (error as { response?: { status?: unknown } } | null)
    ?.response;
  return response?.status === 404;
}
