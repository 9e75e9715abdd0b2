import type { JupyterFrontEnd } from '@jupyterlab/application';
import { type ICommandPalette, Notification } from '@jupyterlab/apputils';
import type { TranslationBundle } from '@jupyterlab/translation';
import { CommandIDs } from '../commands';
import { agentIcon } from '../icons';
import type { AgentPanelService } from '../model/agent-panel-service';
import { changedNotebooks } from '../model/conversation/chat/change-log';
import { SIDEBAR_ID } from '../panel/agent-sidebar';
import type { PanelLoader } from './panel-loader';

export interface IPanelCommandsOptions {
  app: JupyterFrontEnd;
  service: AgentPanelService;
  /** Loads the panel's views (showing the panel loads them too). */
  loader: PanelLoader;
  palette: ICommandPalette | null;
  trans: TranslationBundle;
}

const NO_ARGS = { args: { type: 'object', properties: {} } } as const;

/** Open the panel, start a conversation, list them, focus the composer, test the connection. */
export function addPanelCommands(options: IPanelCommandsOptions): void {
  const { app, loader, palette, trans } = options;
  const show = () => app.shell.activateById(SIDEBAR_ID);
  app.commands.addCommand(CommandIDs.open, {
    label: trans.__('Open Agent Panel'),
    caption: trans.__('Show the agent chat side panel'),
    icon: agentIcon,
    execute: show,
    describedBy: NO_ARGS
  });
  app.commands.addCommand(CommandIDs.newConversation, {
    label: trans.__('New Agent Conversation'),
    caption: trans.__(
      'Start a new conversation thread with the agent (the current one is kept)'
    ),
    execute: async () => {
      show();
      // After the last conversation is opened, or it would replace the new one.
      const panel = await loader.load();
      panel.library.create();
      panel.toggleConversations(false);
    },
    describedBy: NO_ARGS
  });
  app.commands.addCommand(CommandIDs.conversations, {
    label: trans.__('Show Agent Conversations'),
    caption: trans.__(
      'Open the list of agent conversations: open, rename or delete one'
    ),
    execute: async () => {
      show();
      (await loader.load()).toggleConversations(true);
    },
    describedBy: NO_ARGS
  });
  app.commands.addCommand(CommandIDs.focusComposer, {
    label: trans.__('Focus the Agent Message Box'),
    caption: trans.__(
      'Open the agent panel and put the cursor in its message box'
    ),
    execute: async args => {
      show();
      const { composer } = await loader.load();
      if (typeof args.text === 'string') {
        composer.setDraft(args.text);
      }
      composer.focusInput();
    },
    describedBy: {
      args: {
        type: 'object',
        properties: {
          text: {
            type: 'string',
            description:
              'Text to put in the message box, replacing what is there'
          }
        }
      }
    }
  });
  addTestConnectionCommand(options, show);
  addRewindCommand(options, show);

  const category = trans.__('Agent Panel');
  for (const command of Object.values(CommandIDs)) {
    palette?.addItem({ command, category });
  }
}

/** "Test Agent Connection": one notification with the result. */
function addTestConnectionCommand(
  { app, service, loader, trans }: IPanelCommandsOptions,
  show: () => void
): void {
  app.commands.addCommand(CommandIDs.testConnection, {
    label: trans.__('Test Agent Connection'),
    caption: trans.__(
      "Check that the agent panel's current endpoint answers, and say what is wrong if it does not"
    ),
    isEnabled: () => !service.testing,
    execute: async () => {
      // The panel shows the test while it runs and its report after.
      await loader.load();
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
        trans.__('%1: %2', name, report.summary),
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
                  caption: trans.__('Show the full report in the agent panel'),
                  callback: show
                }
              ]
        }
      );
      return report;
    },
    describedBy: NO_ARGS
  });
}

/**
 * "Restore Notebook to Before an Agent Turn" (docs/protocol.md §12.11):
 * the rewind card of turn `turn` and the later ones; without it, of the
 * latest turn of the shown conversation that changed a notebook.
 */
function addRewindCommand(
  { app, service, loader, trans }: IPanelCommandsOptions,
  show: () => void
): void {
  const latest = (): string | null =>
    [...service.model.entries].reverse().find(changedNotebooks)?.key ?? null;
  app.commands.addCommand(CommandIDs.rewindNotebook, {
    label: trans.__('Restore Notebook to Before an Agent Turn'),
    caption: trans.__(
      "Show what it takes to bring the notebook back to how it was before the agent's latest turn that changed it (or the turn given)"
    ),
    isEnabled: args => typeof args.turn === 'string' || latest() !== null,
    execute: async args => {
      const turn = typeof args.turn === 'string' ? args.turn : latest();
      if (turn === null) {
        return;
      }
      show();
      await (await loader.load()).rewindFrom(turn);
    },
    describedBy: {
      args: {
        type: 'object',
        properties: {
          turn: {
            type: 'string',
            description:
              'The key of the turn entry to rewind from (it and every later turn)'
          }
        }
      }
    }
  });
}
