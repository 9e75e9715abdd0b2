import { Notification } from '@jupyterlab/apputils';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IAgentPanel } from '../tokens';
import { errorMessage } from '../wire/json';
import type { ICellContext, NotebookCell } from './cells';
import { conversationCells } from './conversation';
import type { INotebookHost, IOpenNotebook } from './host';
import {
  fillNewNotebook,
  insertCells,
  isBlank,
  type InsertPosition
} from './insert';
import type { Subject } from './subjects';

/** What an insertion puts in, and what to tell the user about it. */
export interface IInsertion {
  cells: NotebookCell[];
  notice?: string;
}

export interface INotebookInserterOptions {
  agentPanel: Pick<IAgentPanel, 'model' | 'settings'>;
  host: INotebookHost;
  /** Asks the user to confirm an action (a dialog in the application). */
  confirm(title: string, body: string, accept: string): Promise<boolean>;
  trans: TranslationBundle;
}

/**
 * Puts cells into notebooks for the commands: where they go, what stops
 * them, the insertion (creating a notebook when the user agrees) and the
 * export. Failures are shown as notifications, never thrown at the caller.
 */
export class NotebookInserter {
  constructor(private readonly _options: INotebookInserterOptions) {}

  /** The insert position setting. */
  get position(): InsertPosition {
    return this._options.agentPanel.settings.insertPosition;
  }

  /**
   * Why a command cannot run: its subject is missing, or the notebook cannot
   * take cells. With no notebook open an insertion offers to create one, but
   * a command that `needsNotebook` (replace) cannot run.
   */
  problemOf(subject: Subject<unknown>, needsNotebook = false): string | null {
    if (subject.problem !== null) {
      return subject.problem;
    }
    const notebook = this._options.host.current();
    if (!notebook) {
      return needsNotebook
        ? this._options.trans.__('Open a notebook first.')
        : null;
    }
    return notebook.problem;
  }

  /**
   * The caption of an insertion at `at`: its `problem`, else what `says`
   * for the open notebook and where the cells go, else (no notebook open)
   * the offer to create one for `what`.
   */
  caption(
    problem: string | null,
    at: InsertPosition,
    what: string,
    says: (notebook: IOpenNotebook, where: string) => string
  ): string {
    if (problem !== null) {
      return problem;
    }
    const trans = this._options.trans;
    const notebook = this._options.host.current();
    if (!notebook) {
      return trans.__(
        'No notebook is open: you will be asked to create one for %1.',
        what
      );
    }
    const where =
      at === 'end'
        ? trans.__('at the end of %1', notebook.name)
        : at === 'replace-active'
          ? trans.__('in place of the active cell of %1', notebook.name)
          : trans.__('below the active cell of %1', notebook.name);
    return says(notebook, where);
  }

  cellContext(notebook: IOpenNotebook): ICellContext {
    return {
      threadId: this._options.agentPanel.model.threadId,
      insertedAt: new Date().toISOString(),
      kernelLanguage: notebook.kernelLanguage
    };
  }

  /**
   * Insert what `build` makes into the current notebook; when none is open
   * and `offer` is given, ask, then use a new notebook (filling its blank
   * cell).
   */
  async insert(
    build: (notebook: IOpenNotebook) => IInsertion,
    at: InsertPosition,
    offer: string | null
  ): Promise<void> {
    const { host, confirm, trans } = this._options;
    try {
      let notebook = host.current();
      if (!notebook) {
        const agreed =
          offer !== null &&
          (await confirm(
            trans.__('No Notebook Open'),
            offer,
            trans.__('Create Notebook')
          ));
        if (!agreed) {
          return;
        }
        notebook = await host.create();
        if (isBlank(notebook.model)) {
          at = 'replace-active';
        }
      }
      if (notebook.problem) {
        Notification.warning(notebook.problem, { autoClose: 5000 });
        return;
      }
      const { cells, notice } = build(notebook);
      insertCells(notebook.widget, cells, at);
      notebook.reveal();
      if (notice) {
        Notification.info(notice, { autoClose: 8000 });
      }
    } catch (error) {
      console.error('Agent Panel: could not insert into the notebook.', error);
      Notification.error(
        trans.__('Could not insert into the notebook: %1', errorMessage(error)),
        { autoClose: 8000 }
      );
    }
  }

  /** A new notebook holding the conversation, saved and shown. */
  async exportConversation(): Promise<void> {
    const { agentPanel, host, trans } = this._options;
    const entries = [...agentPanel.model.entries];
    if (entries.length === 0) {
      return;
    }
    try {
      const notebook = await host.create();
      const cells = conversationCells(entries, {
        ...this.cellContext(notebook),
        maxToolChars: agentPanel.settings.maxToolResultChars,
        branchOf: key => agentPanel.model.siblings(key)
      });
      fillNewNotebook(notebook.widget, cells);
      await notebook.save();
      notebook.reveal();
    } catch (error) {
      console.error('Agent Panel: could not export the conversation.', error);
      Notification.error(
        trans.__('Could not export the conversation: %1', errorMessage(error)),
        { autoClose: 8000 }
      );
    }
  }
}
