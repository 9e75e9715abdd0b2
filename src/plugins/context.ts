import type {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { INotebookTracker } from '@jupyterlab/notebook';
import type { IPanelSettings } from '../contracts/settings';
import { IAgentPanel } from '../tokens';
import { whenPanelLoads } from './panel-loader';

/**
 * Shows and sends the workspace context with each message: the file
 * browser's folder, the focused document, the active cell or the editor
 * selection (chips above the composer; defaults from the `context` setting).
 */
export const contextPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-agent-panel:context',
  description:
    'Sends the current folder, the focused document and the selection (or active cell) with agent panel messages, shown as removable chips.',
  autoStart: true,
  requires: [IAgentPanel],
  optional: [INotebookTracker, IDefaultFileBrowser],
  activate: (
    app: JupyterFrontEnd,
    agentPanel: IAgentPanel,
    notebooks: INotebookTracker | null,
    fileBrowser: IDefaultFileBrowser | null
  ): void => {
    const context = agentPanel.composerContext;
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
            fileBrowser
          })
        )
      );
    });
  }
};
