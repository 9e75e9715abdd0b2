import type {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { INotebookTracker, NotebookActions } from '@jupyterlab/notebook';
import { ITranslator } from '@jupyterlab/translation';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IPanelSettings } from '../contracts/settings';
import type { IVariablesSource } from '../model/conversation/composer-context';
import { IAgentPanel } from '../tokens';
// The context menu's commands exist from the start (the module is small,
// and reads only src/wire).
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { addOutputCommands } from './output-commands';
// So is the mention source: it reads src/wire, and loads the contents
// reader and the notebook cells when `@` is first typed.
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { mentionSource } from './mentions';
import { whenPanelLoads } from './panel-loader';
import { panelStrings } from '../contracts/translation';

/**
 * Shows and sends the workspace context with each message: the file
 * browser's folder, the focused document, the active cell or the editor
 * selection (chips above the composer; defaults from the `context` setting),
 * and what the user attaches: outputs, kernel variables, files and cells.
 */
export const contextPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-agent-panel:context',
  description:
    'Sends the current folder, the focused document and the selection (or active cell) with agent panel messages, shown as removable chips; attaches notebook outputs and errors from their context menu, and files and cells by @ mention or drop.',
  autoStart: true,
  requires: [IAgentPanel],
  optional: [INotebookTracker, IDefaultFileBrowser, ITranslator],
  activate: (
    app: JupyterFrontEnd,
    agentPanel: IAgentPanel,
    notebooks: INotebookTracker | null,
    fileBrowser: IDefaultFileBrowser | null,
    translator: ITranslator | null
  ): void => {
    const context = agentPanel.composerContext;
    const trans = panelStrings(translator);
    if (notebooks) {
      addOutputCommands(app, agentPanel, notebooks, trans);
      context.variablesSource = kernelVariables(notebooks, trans);
    }
    context.mentionSource = mentionSource(app, notebooks, fileBrowser, trans);
    const applySettings = (_: unknown, settings: IPanelSettings) => {
      context.defaults = settings.context;
    };
    applySettings(agentPanel, agentPanel.settings);
    agentPanel.settingsChanged.connect(applySettings);
    // The chips matter once the panel is shown: follow the workspace from then on.
    whenPanelLoads(agentPanel, 'the workspace context', async () => {
      const { WorkspaceContextSource } =
        await import('../notebook/workspace-context');
      // The shell is followed once the workspace is restored; the panel
      // does not wait for that.
      void app.restored.then(() =>
        // Owned by the composer context from here on.
        context.setSource(
          new WorkspaceContextSource({
            shell: app.shell,
            notebooks,
            fileBrowser,
            executed: NotebookActions.executed
          })
        )
      );
    });
  }
};

/** The variables of the current notebook's kernel, asked over its `agent_panel` comm. */
function kernelVariables(
  notebooks: INotebookTracker,
  trans: TranslationBundle
): IVariablesSource {
  return {
    list: async () => {
      const panel = notebooks.currentWidget;
      const kernel = panel?.sessionContext.session?.kernel;
      if (!panel || !kernel) {
        throw new Error(trans.__('This notebook has no kernel running.'));
      }
      const { requestVariables } =
        await import('../transport/comm/kernel-variables');
      const answer = await requestVariables(kernel, trans);
      return { source: panel.context.path, ...answer };
    }
  };
}
