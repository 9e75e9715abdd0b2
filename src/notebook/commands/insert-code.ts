import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { DisposableSet, type IDisposable } from '@lumino/disposable';
import { codeBlockCell, runsInKernel } from '../cells';
import type { ICodeBlock } from '../conversation';
import type { IOpenNotebook } from '../host';
import type { InsertPosition } from '../insert';
import type { IInsertion } from '../inserter';
import { originOf } from '../subjects';
import {
  CODE_ARGS,
  type ICommandGroupOptions,
  NotebookCommandIDs
} from './common';

/**
 * A code block of an answer into the notebook: inserted (below the active
 * cell or at the end, as set) or in place of the active cell. Code in
 * another language than the kernel's goes into a Markdown cell.
 */
export function addCodeCommands(options: ICommandGroupOptions): IDisposable {
  const { commands, subjects, inserter, trans } = options;

  const caption = (
    args: ReadonlyPartialJSONObject,
    at: InsertPosition
  ): string => {
    const subject = subjects.code(args);
    const language = subject.value?.language ?? '';
    return inserter.caption(
      inserter.problemOf(subject, at === 'replace-active'),
      at,
      trans.__('this code'),
      (notebook, where) =>
        runsInKernel(language, notebook.kernelLanguage)
          ? trans.__('Put this code in a code cell %1.', where)
          : trans.__(
              'Put this %1 code in a Markdown cell %2 (the kernel runs %3).',
              language,
              where,
              notebook.kernelLanguage ?? 'Python'
            )
    );
  };

  const insertion =
    ({ code, language }: ICodeBlock) =>
    (notebook: IOpenNotebook): IInsertion => ({
      cells: [codeBlockCell(code, language, inserter.cellContext(notebook))]
    });

  const disposables = new DisposableSet();
  disposables.add(
    commands.addCommand(NotebookCommandIDs.insertCode, {
      label: args =>
        originOf(args) === 'palette'
          ? trans.__('Insert Latest Code Block into Notebook')
          : inserter.position === 'end'
            ? trans.__('Insert at End')
            : trans.__('Insert Below'),
      caption: args => caption(args, inserter.position),
      isEnabled: args => inserter.problemOf(subjects.code(args)) === null,
      execute: args => {
        const code = subjects.code(args).value;
        if (!code) {
          return;
        }
        return inserter.insert(
          insertion(code),
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
      caption: args => caption(args, 'replace-active'),
      isEnabled: args => inserter.problemOf(subjects.code(args), true) === null,
      execute: args => {
        const code = subjects.code(args).value;
        if (!code) {
          return;
        }
        return inserter.insert(insertion(code), 'replace-active', null);
      },
      describedBy: { args: CODE_ARGS }
    })
  );
  return disposables;
}
