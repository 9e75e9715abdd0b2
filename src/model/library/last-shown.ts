/**
 * Which conversation the tab showed last, for the next load: kept in the
 * tab's storage (a reload returns to what this tab showed) and in
 * JupyterLab's state database (the workspace's choice).
 */
import type { ConversationSession } from '../conversation/session';
import type { IStateStore } from '../persistence/persistence';
import type { IUnloadStore } from '../persistence/saver';
import { CONVERSATION_ID } from '../conversation/session';

/** The IStateDB key of the conversation shown last (its id). */
export const LAST_SHOWN_KEY = 'jupyterlab-agent-panel:last-conversation';

export class LastShown {
  constructor(
    private readonly _state: IStateStore | null,
    private readonly _unload: IUnloadStore | null
  ) {}

  /**
   * The conversation to open at load, if any: what this tab showed, else
   * the workspace's (JupyterLab saves it later: another tab's choice, or
   * none yet).
   */
  async read(): Promise<string | null> {
    return (
      conversationId(this._unload?.getItem(LAST_SHOWN_KEY)) ??
      conversationId(await this._state?.fetch(LAST_SHOWN_KEY))
    );
  }

  /**
   * Remember the conversation shown, for the next load; an empty one is
   * not kept, so the one before it opens then.
   */
  note(current: ConversationSession): void {
    const state = this._state;
    if (
      !state ||
      this._noted === current.id ||
      current.model.entries.length === 0
    ) {
      return;
    }
    this._noted = current.id;
    try {
      this._unload?.setItem(LAST_SHOWN_KEY, current.id);
    } catch {
      // Over the tab's storage quota: the workspace copy is all there is.
    }
    state
      .save(LAST_SHOWN_KEY, current.id)
      .catch(error =>
        console.warn(
          'Agent Panel: could not note the conversation shown.',
          error
        )
      );
  }

  /** Conversation `id` was deleted: the next load must not look for it. */
  forget(id: string): void {
    if (this._noted === id) {
      this._noted = null;
      this._unload?.removeItem(LAST_SHOWN_KEY);
      void this._state?.remove(LAST_SHOWN_KEY);
    }
  }

  private _noted: string | null = null;
}

/** `value` when it is a conversation id, else null. */
function conversationId(value: unknown): string | null {
  return typeof value === 'string' && CONVERSATION_ID.test(value)
    ? value
    : null;
}
