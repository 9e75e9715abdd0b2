import {
  DisposableDelegate,
  DisposableSet,
  type IDisposable
} from '@lumino/disposable';
import { NotebookInserter } from '../inserter';
import { SubjectResolver } from '../subjects';
import {
  type ICommandGroupOptions,
  type INotebookCommandsOptions,
  NotebookCommandIDs
} from './common';
import { addExportCommand } from './export';
import { addCodeCommands } from './insert-code';
import { addInsertExtractionCommand } from './insert-extraction';
import { addInsertMessageCommand } from './insert-message';

export {
  INSERT_PLAN_COMMAND,
  type INotebookCommandsOptions,
  NotebookCommandIDs
} from './common';

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
  const group: ICommandGroupOptions = {
    ...options,
    subjects: new SubjectResolver(
      () => agentPanel.model,
      options.hitTest,
      trans
    ),
    inserter: new NotebookInserter(options)
  };
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
  for (const addGroup of [
    addInsertExtractionCommand,
    addCodeCommands,
    addInsertMessageCommand,
    addExportCommand
  ]) {
    disposables.add(addGroup(group));
  }
  return disposables;
}
