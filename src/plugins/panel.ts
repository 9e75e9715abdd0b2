import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStateDB } from '@jupyterlab/statedb';
import {
  ITranslator,
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
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
import { addPanelCommands } from './panel-commands';

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
          serverSettings,
          trans
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
    addPanelCommands({ app, service, panel, palette, trans });
    if (state) {
      restoreSaved(app, service, panel, state);
    }
    // Health is polled once the endpoint from the settings is known.
    void followSettings(app, settingRegistry, service, trans).then(() =>
      service.health.start()
    );
    return service;
  }
};

/**
 * The conversation (and a pending review) survives a page reload; so does
 * the message queue, saved apart (it waits for the user then).
 */
function restoreSaved(
  app: JupyterFrontEnd,
  service: AgentPanelService,
  panel: ChatPanel,
  state: IStateDB
): void {
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

/**
 * Apply the settings once the application is restored, and each change
 * after. Resolves when the first settings apply (or could not be read).
 */
async function followSettings(
  app: JupyterFrontEnd,
  settingRegistry: ISettingRegistry | null,
  service: AgentPanelService,
  trans: TranslationBundle
): Promise<void> {
  try {
    if (!settingRegistry) {
      await app.restored;
      return;
    }
    const [, settings] = await Promise.all([
      app.restored,
      settingRegistry.load(PLUGIN_ID)
    ]);
    let reported = '';
    const read = () => {
      const { settings: parsed, problems } = parseSettings(
        settings.composite,
        trans
      );
      const text = describeProblems(problems, trans);
      // Once per change: the registry may announce one save twice.
      if (text && text !== reported) {
        reportSettingsProblems(app, text, trans);
      }
      reported = text;
      service.setSettings(parsed);
    };
    read();
    settings.changed.connect(read);
  } catch (reason) {
    console.error('Agent Panel: could not load its settings.', reason);
  }
}

/** A lasting notification, with a way to the Settings Editor. */
function reportSettingsProblems(
  app: JupyterFrontEnd,
  text: string,
  trans: TranslationBundle
): void {
  console.warn(`Agent Panel settings:\n${text}`);
  Notification.warning(trans.__('Agent Panel settings: %1', text), {
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
  });
}
