import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStateDB } from '@jupyterlab/statedb';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { CommandIDs } from '../commands';
import { agentIcon } from '../icons';
import { AgentPanelService } from '../model/agent-panel-service';
import { ChatModel } from '../model/chat-model';
import { ChatPanel } from '../panel/chat-panel';
import { parseSettings } from '../settings';
import { IAgentPanel } from '../tokens';
import { httpTransportFactory } from '../transport/http';

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
    IStateDB
  ],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    settingRegistry: ISettingRegistry | null,
    restorer: ILayoutRestorer | null,
    palette: ICommandPalette | null,
    translator: ITranslator | null,
    state: IStateDB | null
  ): IAgentPanel => {
    const trans = (translator ?? nullTranslator).load('jupyterlab_agent_panel');
    const service = new AgentPanelService(new ChatModel(undefined, trans));
    service.registerTransport(
      'http',
      httpTransportFactory(app.serviceManager.serverSettings)
    );
    const panel = new ChatPanel({
      service,
      rendermime,
      trans,
      commands: app.commands
    });
    app.shell.add(panel, 'right', { rank: 500 });
    restorer?.add(panel, 'jupyterlab-agent-panel');

    app.commands.addCommand(CommandIDs.open, {
      label: trans.__('Open Agent Panel'),
      caption: trans.__('Show the agent chat side panel'),
      icon: agentIcon,
      execute: () => app.shell.activateById(panel.id),
      describedBy: { args: { type: 'object', properties: {} } }
    });
    app.commands.addCommand(CommandIDs.newConversation, {
      label: trans.__('New Agent Conversation'),
      caption: trans.__('Start a new conversation thread with the agent'),
      execute: () => {
        service.model.newConversation();
        app.shell.activateById(panel.id);
      },
      describedBy: { args: { type: 'object', properties: {} } }
    });
    app.commands.addCommand(CommandIDs.focusComposer, {
      label: trans.__('Focus the Agent Message Box'),
      caption: trans.__(
        'Open the agent panel and put the cursor in its message box'
      ),
      execute: () => {
        app.shell.activateById(panel.id);
        panel.composer.focusInput();
      },
      describedBy: { args: { type: 'object', properties: {} } }
    });
    if (state) {
      // The conversation (and a pending review) survives a page reload.
      app.restored
        .then(() => import('../model/persistence'))
        .then(({ ChatPersistence }) => {
          const persistence = new ChatPersistence(service.model, state);
          panel.disposed.connect(() => persistence.dispose());
          return persistence.start();
        })
        .then(problems => {
          for (const problem of problems) {
            console.warn(`Agent Panel: ${problem}`);
          }
        })
        .catch(reason => {
          console.error(
            'Agent Panel: could not restore the conversation.',
            reason
          );
        });
    }

    const category = trans.__('Agent Panel');
    for (const command of Object.values(CommandIDs)) {
      palette?.addItem({ command, category });
    }

    // Health is polled once the endpoint from the settings is known.
    const settingsRead = settingRegistry
      ? Promise.all([app.restored, settingRegistry.load(PLUGIN_ID)]).then(
          ([, settings]) => {
            const read = () => {
              const { settings: parsed, problems } = parseSettings(
                settings.composite
              );
              for (const problem of problems) {
                console.warn(
                  `Agent Panel setting ${problem.field}: ${problem.message}`
                );
              }
              service.setSettings(parsed);
            };
            read();
            settings.changed.connect(read);
          }
        )
      : app.restored;
    settingsRead
      .catch(reason => {
        console.error('Agent Panel: could not load its settings.', reason);
      })
      .then(() => service.health.start());
    return service;
  }
};
