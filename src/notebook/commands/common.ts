/** What the notebook command groups share: their ids, options and arguments. */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { CommandRegistry } from '@lumino/commands';
import type { IAgentPanel } from '../../tokens';
import type { INotebookHost } from '../host';
import type { NotebookInserter } from '../inserter';
import type { HitTest, SubjectResolver } from '../subjects';

export namespace NotebookCommandIDs {
  export const insertExtraction = 'agent-panel:insert-extraction';
  export const insertCode = 'agent-panel:insert-code';
  export const replaceActiveCell = 'agent-panel:replace-active-cell';
  export const insertMessage = 'agent-panel:insert-message-markdown';
  export const exportConversation = 'agent-panel:export-notebook';
}

/** The label of the export command (also shown before the commands load). */
export function exportConversationLabel(trans: TranslationBundle): string {
  return trans.__('Export Conversation to Notebook');
}

/** Inserts the agent's plan; registered by `plan.ts`, loaded later. */
export const INSERT_PLAN_COMMAND = 'agent-panel:insert-plan';

export interface INotebookCommandsOptions {
  commands: CommandRegistry;
  agentPanel: IAgentPanel;
  host: INotebookHost;
  /** Finds the transcript node under the last right-click. */
  hitTest: HitTest;
  /** Asks the user to confirm an action (a dialog in the application). */
  confirm(title: string, body: string, accept: string): Promise<boolean>;
  trans: TranslationBundle;
}

/** A command group's options, with the resolver and inserter all share. */
export interface ICommandGroupOptions extends INotebookCommandsOptions {
  subjects: SubjectResolver;
  inserter: NotebookInserter;
}

/** The arguments of a command acting on one transcript item. */
export const ITEM_ARGS = {
  type: 'object',
  properties: {
    turn: { type: 'string', description: 'Key of the turn entry' },
    item: { type: 'integer', description: 'Key of the item in the turn' },
    fromContextMenu: {
      type: 'boolean',
      description: 'Act on the transcript item under the last right-click'
    }
  }
} as const;

/** The arguments of a command acting on a code block. */
export const CODE_ARGS = {
  type: 'object',
  properties: {
    code: { type: 'string', description: 'The code block text' },
    language: { type: 'string', description: 'The code block language' },
    fromContextMenu: {
      type: 'boolean',
      description: 'Act on the code block under the last right-click'
    }
  }
} as const;
