import type { IDisposable } from '@lumino/disposable';
import {
  exportConversationLabel,
  type ICommandGroupOptions,
  NotebookCommandIDs
} from './common';

/** The whole conversation as a new notebook. */
export function addExportCommand(options: ICommandGroupOptions): IDisposable {
  const { commands, agentPanel, inserter, trans } = options;
  return commands.addCommand(NotebookCommandIDs.exportConversation, {
    label: exportConversationLabel(trans),
    caption: () =>
      agentPanel.model.entries.length === 0
        ? trans.__('The conversation is empty.')
        : trans.__(
            'Create a notebook with this conversation: messages and answers as Markdown, tool calls summarised, extracted data as cells with outputs.'
          ),
    isEnabled: () => agentPanel.model.entries.length > 0,
    execute: () => inserter.exportConversation(),
    describedBy: { args: { type: 'object', properties: {} } }
  });
}
