import type {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ITranslator } from '@jupyterlab/translation';
import { IAgentPanel } from '../tokens';
import { whenPanelLoads } from './panel-loader';
import { panelStrings } from '../contracts/translation';

/** The `comm` transport: chat with a graph served in a notebook's kernel. */
export const commPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-agent-panel:comm',
  description:
    'Talks to an agent served in the notebook kernel over the agent_panel comm.',
  autoStart: true,
  requires: [IAgentPanel, INotebookTracker],
  optional: [ITranslator],
  activate: (
    _app: JupyterFrontEnd,
    panel: IAgentPanel,
    notebooks: INotebookTracker,
    translator: ITranslator | null
  ): void => {
    const trans = panelStrings(translator);
    // Loaded with the panel, which picks the transport up whenever it is registered.
    whenPanelLoads(panel, 'the comm transport', async () => {
      const [{ KernelCommTransport }, { KernelBinding }] = await Promise.all([
        import('../transport/comm/comm'),
        import('../transport/comm/kernel-binding')
      ]);
      panel.registerTransport(
        'comm',
        endpoint =>
          new KernelCommTransport({
            binding: new KernelBinding({
              notebooks,
              pinnedPath: endpoint.notebook,
              trans
            }),
            commTarget: endpoint.commTarget,
            connectTimeoutMs: endpoint.connectTimeoutSeconds * 1000,
            idleTimeoutMs: endpoint.idleTimeoutSeconds * 1000,
            trans
          })
      );
    });
  }
};
