import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStateDB } from '@jupyterlab/statedb';
import { ITranslator, type TranslationBundle } from '@jupyterlab/translation';
// What JupyterLab's start needs: the service behind the token (the
// conversation's model and the settings), the sidebar tab and the commands.
// The views, transports and notebook code load when the panel is first
// needed (`panel-loader.ts`, `panel-view.ts`).
/* eslint-disable jupyter/prefer-lazy-imports */
import { AgentPanelService } from '../model/agent-panel-service';
import { ChatModel } from '../model/conversation/chat-model';
import { AgentSidebar } from '../panel/agent-sidebar';
import { addPanelCommands } from './panel-commands';
import { SettingsFollower } from './settings-follower';
/* eslint-enable jupyter/prefer-lazy-imports */
import { errorMessage } from '../wire/json';
import { IAgentPanel } from '../tokens';
import { PanelLoader, setPanelLoader } from './panel-loader';
import { panelStrings } from '../contracts/translation';

export const PLUGIN_ID = 'jupyterlab-agent-panel:plugin';

/** The side panel, its settings, its commands and the HTTP transport. */
export const panelPlugin: JupyterFrontEndPlugin<IAgentPanel> = {
  id: PLUGIN_ID,
  description: 'A side panel to chat with LangGraph agents.',
  autoStart: true,
  provides: IAgentPanel,
  requires: [IRenderMimeRegistry],
  optional: [
    ISettingRegistry,
    ILayoutRestorer,
    ICommandPalette,
    ITranslator,
    IStateDB,
    IEditorLanguageRegistry
  ],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    settingRegistry: ISettingRegistry | null,
    restorer: ILayoutRestorer | null,
    palette: ICommandPalette | null,
    translator: ITranslator | null,
    state: IStateDB | null,
    languages: IEditorLanguageRegistry | null
  ): IAgentPanel => {
    const trans = panelStrings(translator);
    const serverSettings = app.serviceManager.serverSettings;
    const service = new AgentPanelService(new ChatModel(undefined, trans), {
      loadProbe: async () =>
        (await import('../transport/http/probe')).createConnectionProbe({
          serverSettings,
          trans
        }),
      trans
    });
    const settingsApplied = followSettings(
      app,
      settingRegistry,
      service,
      trans
    );
    const loader = new PanelLoader(async () => {
      const { buildPanel } = await import('./panel-view');
      return buildPanel(
        {
          app,
          service,
          rendermime,
          state,
          languages,
          settingsApplied,
          trans
        },
        panel => sidebar.setContent(panel)
      );
    });
    const sidebar = new AgentSidebar(trans, () => {
      if (!loader.started) {
        loader.load().catch(reason => {
          console.error('Agent Panel: could not load the panel.', reason);
          sidebar.showFailure(errorMessage(reason));
        });
      }
    });
    app.shell.add(sidebar, 'right', { rank: 500 });
    restorer?.add(sidebar, 'jupyterlab-agent-panel');
    setPanelLoader(service, loader);
    addPanelCommands({ app, service, loader, palette, trans });
    return service;
  }
};

/**
 * Apply the settings once the application is restored, and each change
 * after. Resolves when the first settings apply (or could not be read).
 */
async function followSettings(
  app: JupyterFrontEnd,
  registry: ISettingRegistry | null,
  service: AgentPanelService,
  trans: TranslationBundle
): Promise<void> {
  try {
    if (!registry) {
      await app.restored;
      return;
    }
    // Lives as long as the application, like the settings it follows.
    // eslint-disable-next-line jupyter/require-disposable-ownership
    const follower = new SettingsFollower({
      registry,
      pluginId: PLUGIN_ID,
      apply: settings => service.setSettings(settings),
      openSettings: () =>
        void app.commands.execute('settingeditor:open', {
          query: 'Agent Panel'
        }),
      trans
    });
    await follower.start(app.restored);
  } catch (reason) {
    console.error('Agent Panel: could not load its settings.', reason);
  }
}
