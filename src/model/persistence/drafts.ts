/**
 * What the user typed in the message box and has not sent, kept per
 * conversation. The panel keeps drafts in the tab's `sessionStorage`: a
 * reload of the tab finds them, writing one costs no request (the server's
 * store would take a PUT per pause in typing, and every tab would share one
 * draft), and another tab keeps its own. A draft is gone with the tab.
 */
import type { ConversationSession } from '../conversation/session';
import type { IUnloadStore } from './saver';

/** The storage key of conversation `id`'s draft (null: the new conversation's). */
export function draftKey(id: string | null): string {
  return `jupyterlab-agent-panel:draft:${id ?? 'new'}`;
}

/**
 * The draft of one conversation. A conversation without a message is not
 * stored, and a reload shows a new one in its place: its draft is kept as
 * the new conversation's, which the next empty conversation shown takes
 * (after a reload, or from New). Once it has a message, the draft is the
 * conversation's own.
 */
export class ConversationDraft {
  constructor(
    private readonly _session: ConversationSession,
    private readonly _store: IUnloadStore
  ) {
    this._key = this._currentKey();
  }

  /** The draft kept ('' when there is none). */
  read(): string {
    return this._store.getItem(this._currentKey()) ?? '';
  }

  /** Keep `text` as the draft; '' forgets it. */
  write(text: string): void {
    const key = this._currentKey();
    if (key !== this._key) {
      // The conversation's first message went: the new conversation's draft is now its own.
      this._store.removeItem(this._key);
      this._key = key;
    }
    try {
      if (text) {
        this._store.setItem(key, text);
      } else {
        this._store.removeItem(key);
      }
    } catch (error) {
      // A full storage loses the draft, not the typing.
      console.warn('Agent Panel: the draft could not be kept.', error);
    }
  }

  private _currentKey(): string {
    const { id, model } = this._session;
    return draftKey(model.entries.length > 0 ? id : null);
  }

  /** Where the draft was last read or written. */
  private _key: string;
}

/** Drafts kept while the page lives (where the tab's storage cannot be used). */
export class MemoryDraftStore implements IUnloadStore {
  getItem(key: string): string | null {
    return this._items.get(key) ?? null;
  }

  setItem(key: string, value: string): void {
    this._items.set(key, value);
  }

  removeItem(key: string): void {
    this._items.delete(key);
  }

  private readonly _items = new Map<string, string>();
}
