import type { IDisposable } from '@lumino/disposable';
import { extractionCell, isPythonKernel } from '../cells';
import { codeSources } from '../insert';
import { boundNames } from '../naming';
import { originOf } from '../subjects';
import {
  type ICommandGroupOptions,
  ITEM_ARGS,
  NotebookCommandIDs
} from './common';

/**
 * "Insert into Notebook" for extracted data: a code cell binding the data
 * and showing it as outputs (JSON in a Markdown cell for other kernels).
 */
export function addInsertExtractionCommand(
  options: ICommandGroupOptions
): IDisposable {
  const { commands, subjects, inserter, trans } = options;
  return commands.addCommand(NotebookCommandIDs.insertExtraction, {
    label: args =>
      originOf(args) === 'palette'
        ? trans.__('Insert Latest Extracted Data into Notebook')
        : trans.__('Insert into Notebook'),
    caption: args => {
      const subject = subjects.extraction(args);
      const type = subject.value?.extractedType ?? '';
      return inserter.caption(
        inserter.problemOf(subject),
        inserter.position,
        type,
        (notebook, where) =>
          isPythonKernel(notebook.kernelLanguage)
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
              )
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
  });
}
