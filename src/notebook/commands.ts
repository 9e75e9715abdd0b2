import type { TranslationBundle } from '@jupyterlab/translation';
import type { CommandRegistry } from '@lumino/commands';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import {
  DisposableDelegate,
  DisposableSet,
  IDisposable
} from '@lumino/disposable';
import type { IAgentPanel } from '../tokens';
import {
  codeBlockCell,
  extractionCell,
  isPythonKernel,
  markdownCell,
  runsInKernel
} from './cells';
import type { INotebookHost, IOpenNotebook } from './host';
import { codeSources, type InsertPosition } from './insert';
import { NotebookInserter, type IInsertion } from './inserter';
import { boundNames } from './naming';
import type { ICodeBlock } from './conversation';
import { originOf, SubjectResolver, type HitTest } from './subjects';

export namespace NotebookCommandIDs {
  export const insertExtraction = 'agent-panel:insert-extraction';
  export const insertCode = 'agent-panel:insert-code';
  export const replaceActiveCell = 'agent-panel:replace-active-cell';
  export const insertMessage = 'agent-panel:insert-message-markdown';
  export const exportConversation = 'agent-panel:export-notebook';
}

/** Inserts the agent's plan; registered by `plan-command.ts`, loaded later. */
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

const ITEM_ARGS = {
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

const CODE_ARGS = {
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

/**
 * Commands that put the conversation into notebooks: an extraction as a
 * cell with outputs, a code block, an answer as Markdown, and the whole
 * conversation as a new notebook. Each says in its caption what it will do,
 * or why it cannot; buttons follow when the notebook or the settings change.
 */
export function addNotebookCommands(
  options: INotebookCommandsOptions
): IDisposable {
  const { commands, agentPanel, host, trans } = options;
  const subjects = new SubjectResolver(
    () => agentPanel.model,
    options.hitTest,
    trans
  );
  const inserter = new NotebookInserter(options);
  const ids = Object.values(NotebookCommandIDs);
  const notify = () => ids.forEach(id => commands.notifyCommandChanged(id));
  host.changed.connect(notify);
  agentPanel.settingsChanged.connect(notify);
  const disposables = new DisposableSet();
  disposables.add(
    new DisposableDelegate(() => {
      host.changed.disconnect(notify);
      agentPanel.settingsChanged.disconnect(notify);
    })
  );

  disposables.add(
    commands.addCommand(NotebookCommandIDs.insertExtraction, {
      label: args =>
        originOf(args) === 'palette'
          ? trans.__('Insert Latest Extracted Data into Notebook')
          : trans.__('Insert into Notebook'),
      caption: args => {
        const subject = subjects.extraction(args);
        const problem = inserter.problemOf(subject);
        if (problem !== null) {
          return problem;
        }
        const type = subject.value!.extractedType;
        const notebook = host.current();
        if (!notebook) {
          return inserter.offerText(type);
        }
        const where = inserter.where(notebook, inserter.position);
        return isPythonKernel(notebook.kernelLanguage)
          ? trans.__(
              'Insert %1 as a code cell %2, showing the data without running anything.',
              type,
              where
            )
          : trans.__(
              '%1 runs %2, not Python: insert %3 as JSON in a Markdown cell %4.',
              notebook.name,
              notebook.kernelLanguage ?? '',
              type,
              where
            );
      },
      isEnabled: args => inserter.problemOf(subjects.extraction(args)) === null,
      execute: args => {
        const extraction = subjects.extraction(args).value;
        if (!extraction) {
          return;
        }
        const type = extraction.extractedType;
        return inserter.insert(
          notebook => {
            const taken = boundNames(codeSources(notebook.model));
            const context = inserter.cellContext(notebook);
            const { cell } = extractionCell(extraction, taken, context);
            return {
              cells: [cell],
              notice: isPythonKernel(notebook.kernelLanguage)
                ? undefined
                : trans.__(
                    '%1 runs %2, not Python, so %3 was inserted as JSON in a Markdown cell.',
                    notebook.name,
                    notebook.kernelLanguage ?? '',
                    type
                  )
            };
          },
          inserter.position,
          trans.__('Create a new notebook and insert %1 there?', type)
        );
      },
      describedBy: { args: ITEM_ARGS }
    })
  );

  const codeCaption = (
    args: ReadonlyPartialJSONObject,
    at: InsertPosition
  ): string => {
    const subject = subjects.code(args);
    const problem = inserter.problemOf(subject, at === 'replace-active');
    if (problem !== null) {
      return problem;
    }
    const notebook = host.current();
    if (!notebook) {
      return inserter.offerText(trans.__('this code'));
    }
    const { language } = subject.value!;
    const where = inserter.where(notebook, at);
    return runsInKernel(language, notebook.kernelLanguage)
      ? trans.__('Put this code in a code cell %1.', where)
      : trans.__(
          'Put this %1 code in a Markdown cell %2 (the kernel runs %3).',
          language,
          where,
          notebook.kernelLanguage ?? 'Python'
        );
  };

  const codeInsertion =
    ({ code, language }: ICodeBlock) =>
    (notebook: IOpenNotebook): IInsertion => ({
      cells: [codeBlockCell(code, language, inserter.cellContext(notebook))]
    });

  disposables.add(
    commands.addCommand(NotebookCommandIDs.insertCode, {
      label: args =>
        originOf(args) === 'palette'
          ? trans.__('Insert Latest Code Block into Notebook')
          : inserter.position === 'end'
            ? trans.__('Insert at End')
            : trans.__('Insert Below'),
      caption: args => codeCaption(args, inserter.position),
      isEnabled: args => inserter.problemOf(subjects.code(args)) === null,
      execute: args => {
        const code = subjects.code(args).value;
        if (!code) {
          return;
        }
        return inserter.insert(
          codeInsertion(code),
          inserter.position,
          trans.__('Create a new notebook and insert this code there?')
        );
      },
      describedBy: { args: CODE_ARGS }
    })
  );

  disposables.add(
    commands.addCommand(NotebookCommandIDs.replaceActiveCell, {
      label: args =>
        originOf(args) === 'palette'
          ? trans.__('Replace Active Cell with Latest Code Block')
          : trans.__('Replace Active Cell'),
      caption: args => codeCaption(args, 'replace-active'),
      isEnabled: args => inserter.problemOf(subjects.code(args), true) === null,
      execute: args => {
        const code = subjects.code(args).value;
        if (!code) {
          return;
        }
        return inserter.insert(codeInsertion(code), 'replace-active', null);
      },
      describedBy: { args: CODE_ARGS }
    })
  );

  disposables.add(
    commands.addCommand(NotebookCommandIDs.insertMessage, {
      label: args =>
        originOf(args) === 'palette'
          ? trans.__('Insert Latest Answer as Markdown')
          : trans.__('Insert as Markdown'),
      caption: args => {
        const problem = inserter.problemOf(subjects.message(args));
        if (problem !== null) {
          return problem;
        }
        const notebook = host.current();
        return notebook
          ? trans.__(
              'Put this answer in a Markdown cell %1.',
              inserter.where(notebook, inserter.position)
            )
          : inserter.offerText(trans.__('this answer'));
      },
      isEnabled: args => inserter.problemOf(subjects.message(args)) === null,
      execute: args => {
        const message = subjects.message(args).value;
        if (!message) {
          return;
        }
        return inserter.insert(
          notebook => {
            const { threadId, insertedAt } = inserter.cellContext(notebook);
            const provenance = {
              kind: 'message' as const,
              thread_id: threadId,
              inserted_at: insertedAt
            };
            return { cells: [markdownCell(message.text, provenance)] };
          },
          inserter.position,
          trans.__('Create a new notebook and insert this answer there?')
        );
      },
      describedBy: { args: ITEM_ARGS }
    })
  );

  disposables.add(
    commands.addCommand(NotebookCommandIDs.exportConversation, {
      label: trans.__('Export Conversation to Notebook'),
      caption: () =>
        agentPanel.model.entries.length === 0
          ? trans.__('The conversation is empty.')
          : trans.__(
              'Create a notebook with this conversation: messages and answers as Markdown, tool calls summarised, extracted data as cells with outputs.'
            ),
      isEnabled: () => agentPanel.model.entries.length > 0,
      execute: () => inserter.exportConversation(),
      describedBy: { args: { type: 'object', properties: {} } }
    })
  );

  return disposables;
}
