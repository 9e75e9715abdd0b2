import type { IDisposable } from '@lumino/disposable';
import { markdownCell } from '../cells';
import { originOf } from '../subjects';
import {
  type ICommandGroupOptions,
  ITEM_ARGS,
  NotebookCommandIDs
} from './common';

/** An answer of the agent into the notebook, as a Markdown cell. */
export function addInsertMessageCommand(
  options: ICommandGroupOptions
): IDisposable {
  const { commands, subjects, inserter, trans } = options;
  return commands.addCommand(NotebookCommandIDs.insertMessage, {
    label: args =>
      originOf(args) === 'palette'
        ? trans.__('Insert Latest Answer as Markdown')
        : trans.__('Insert as Markdown'),
    caption: args =>
      inserter.caption(
        inserter.problemOf(subjects.message(args)),
        inserter.position,
        trans.__('this answer'),
        (_, where) => trans.__('Put this answer in a Markdown cell %1.', where)
      ),
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
  });
}
