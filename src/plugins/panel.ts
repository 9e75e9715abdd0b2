import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStateDB } from '@jupyterlab/statedb';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import { CommandIDs } from '../commands';
import { agentIcon } from '../icons';
// The side panel is added to the shell (and restored into the layout) during
// activation, so its model, view and default transport are needed at once;
// the settings parser is in the same chunk, pulled in by the service.
/* eslint-disable jupyter/prefer-lazy-imports */
import { AgentPanelService } from '../model/agent-panel-service';
import { ChatModel } from '../model/conversation/chat-model';
import { ChatPanel } from '../panel/chat-panel';
import { describeProblems, parseSettings } from '../contracts/settings';
import { httpTransportFactory } from '../transport/http';
/* eslint-enable jupyter/prefer-lazy-imports */
import { IAgentPanel } from '../tokens';

/** Saves a part of the panel in the state database and restores it. */
interface IPersistence extends IDisposable {
  /** Restore, then save on change; resolves to what could not be restored. */
  start(): Promise<string[]>;
}

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
    const serverSettings = app.serviceManager.serverSettings;
    const service = new AgentPanelService(new ChatModel(undefined, trans), {
      loadProbe: async () =>
        (await import('../transport/probe')).createConnectionProbe({
          serverSettings
        }),
      trans
    });
    service.registerTransport(
      'http',
      httpTransportFactory(serverSettings, trans)
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
    app.commands.addCommand(CommandIDs.testConnection, {
      label: trans.__('Test Agent Connection'),
      caption: trans.__(
        "Check that the agent panel's current endpoint answers, and say what is wrong if it does not"
      ),
      isEnabled: () => !service.testing,
      execute: async () => {
        if (service.testing) {
          return; // a double click: the first test reports
        }
        const name = service.endpoint.name;
        // One notification, with the result: JupyterLab drops an update that
        // comes before its toast is shown, which would leave a "testing…"
        // toast open for good. The panel shows the test while it runs.
        const testing = service.testConnection();
        app.commands.notifyCommandChanged(CommandIDs.testConnection);
        const report = await testing;
        app.commands.notifyCommandChanged(CommandIDs.testConnection);
        Notification.emit(
          `${name}: ${report.summary}`,
          report.ok
            ? 'success'
            : report.verdict === 'needs_setup'
              ? 'warning'
              : 'error',
          {
            autoClose: report.ok ? 5000 : false,
            actions: report.ok
              ? []
              : [
                  {
                    label: trans.__('Details'),
                    caption: trans.__(
                      'Show the full report in the agent panel'
                    ),
                    callback: () => app.shell.activateById(panel.id)
                  }
                ]
          }
        );
        return report;
      },
      describedBy: { args: { type: 'object', properties: {} } }
    });
    if (state) {
      // The conversation (and a pending review) survives a page reload; so
      // does the message queue, saved apart (it waits for the user then).
      const restore = (what: string, create: () => Promise<IPersistence>) =>
        app.restored
          .then(create)
          .then(persistence => {
            panel.disposed.connect(() => persistence.dispose());
            return persistence.start();
          })
          .then(problems => {
            for (const problem of problems) {
              console.warn(`Agent Panel: ${problem}`);
            }
          })
          .catch(reason => {
            console.error(`Agent Panel: could not restore ${what}.`, reason);
          });
      void restore('the conversation', async () => {
        const { ChatPersistence } =
          await import('../model/persistence/persistence');
        return new ChatPersistence(service.model, state);
      });
      void restore('the queue', async () => {
        const { QueuePersistence } =
          await import('../model/persistence/queue-persistence');
        return new QueuePersistence(service.queue, state);
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
            let reported = '';
            const read = () => {
              const { settings: parsed, problems } = parseSettings(
                settings.composite
              );
              const text = describeProblems(problems);
              // Once per change: the registry may announce one save twice.
              if (text && text !== reported) {
                console.warn(`Agent Panel settings:\n${text}`);
                Notification.warning(
                  trans.__('Agent Panel settings: %1', text),
                  {
                    autoClose: false,
                    actions: [
                      {
                        label: trans.__('Open Settings'),
                        callback: () =>
                          void app.commands.execute('settingeditor:open', {
                            query: 'Agent Panel'
                          })
                      }
                    ]
                  }
                );
              }
              reported = text;
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
