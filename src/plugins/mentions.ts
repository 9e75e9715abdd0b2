import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IMentionSource } from '../model/conversation/composer-context';
import type { ContentsReader } from '../transport/server/contents-reader';
import {
  cellMentions,
  fileMentions,
  type IMentionItem,
  mentionFolder
} from '../context/mentions';

/**
 * Files and cells for `@` mentions and drops on the message box: the
 * Jupyter contents through the app's contents manager (hidden files as the
 * server and the file browser show them), and the cells of the notebook
 * last focused. A file is read when its chip is made, so the chip can show
 * its cap and "Sent with:" what went.
 */
export function mentionSource(
  app: JupyterFrontEnd,
  notebooks: INotebookTracker | null,
  fileBrowser: IDefaultFileBrowser | null,
  trans: TranslationBundle
): IMentionSource {
  // One reader, made on first use: it answers a folder typed into again.
  let made: Promise<ContentsReader> | null = null;
  const reader = () =>
    (made ??= import('../transport/server/contents-reader').then(
      ({ ContentsReader }) =>
        new ContentsReader(app.serviceManager.contents, trans)
    ));
  const panels = () => {
    const found: NotebookPanel[] = [];
    notebooks?.forEach(panel => found.push(panel));
    return found;
  };
  return {
    complete: async query => {
      const { notebookCells } = await import('../notebook/mention-cells');
      const { folder, prefix } = mentionFolder(query);
      const entries = await (await reader()).list(folder);
      const files = fileMentions(
        entries,
        prefix,
        fileBrowser?.model.includeHiddenFiles ?? false
      );
      const panel = notebooks?.currentWidget;
      const cells = panel
        ? cellMentions(notebookCells(panel), panel.context.path, query)
        : [];
      // "@c" could be either; a cell is what "@cell" means.
      return /^cell\b/i.test(query)
        ? [...cells, ...files]
        : [...files, ...cells];
    },
    attachment: async (item: IMentionItem) => {
      if (item.kind !== 'cell') {
        return (await reader()).attachment(item.path);
      }
      const { cellAt } = await import('../notebook/mention-cells');
      const panel = panels().find(panel => panel.context.path === item.path);
      const draft = panel ? cellAt(panel, item.index ?? -1) : null;
      if (!draft) {
        throw new Error(
          trans.__(
            'Cell %1 of %2 is no longer open.',
            (item.index ?? 0) + 1,
            item.path
          )
        );
      }
      return draft;
    },
    dropped: async drop => {
      if (drop.kind === 'cells') {
        const { droppedCells } = await import('../notebook/mention-cells');
        return droppedCells(drop.source, drop.cells, panels());
      }
      const files = await reader();
      const read = await Promise.allSettled(
        drop.paths.map(path => files.attachment(path))
      );
      const drafts = read.flatMap(result =>
        result.status === 'fulfilled' ? [result.value] : []
      );
      const failed = read.find(result => result.status === 'rejected');
      // Some files and a folder: the files are attached; only a drop of
      // nothing readable is an error.
      if (drafts.length === 0 && failed) {
        throw failed.reason;
      }
      return drafts;
    }
  };
}
