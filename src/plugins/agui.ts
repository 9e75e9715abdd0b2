import type {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ITranslator } from '@jupyterlab/translation';
import { IAgentPanel } from '../tokens';
import { whenPanelLoads } from './panel-loader';
import { panelStrings } from '../contracts/translation';

/**
 * AG-UI endpoints (`transport: "agui"`): HTTP + server-sent events for an
 * `http(s)://` URL or a relative path, a chanx websocket for `ws(s)://`.
 */
export const aguiPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-agent-panel:agui',
  description: 'Lets the agent panel talk to AG-UI endpoints.',
  autoStart: true,
  requires: [IAgentPanel],
  optional: [ITranslator],
  activate: (
    app: JupyterFrontEnd,
    panel: IAgentPanel,
    translator: ITranslator | null
  ): void => {
    const trans = panelStrings(translator);
    // Loaded with the panel, which picks the transport up whenever it is registered.
    whenPanelLoads(panel, 'the AG-UI transport', async () => {
      const [http, ws] = await Promise.all([
        import('../transport/agui/agui-http'),
        import('../transport/agui/agui-ws')
      ]);
      const overHttp = http.aguiHttpTransportFactory(
        app.serviceManager.serverSettings,
        trans
      );
      const overWebSocket = ws.aguiWsTransportFactory(trans);
      panel.registerTransport('agui', endpoint =>
        ws.isWebSocketUrl(endpoint.url)
          ? overWebSocket(endpoint)
          : overHttp(endpoint)
      );
    });
  }
};
