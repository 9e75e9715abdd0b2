import type {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import {
  Dialog,
  ICommandPalette,
  Notification,
  showDialog
} from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ITranslator, type TranslationBundle } from '@jupyterlab/translation';
import {
  exportConversationLabel,
  INSERT_PLAN_COMMAND,
  type INotebookCommandsOptions,
  NotebookCommandIDs
} from '../notebook/commands/common';
import { REVEAL_CELL_COMMAND } from '../contracts/extension-points';
import { isCellToReveal } from '../notebook/reveal-cell';
import { IAgentPanel } from '../tokens';
import { panelLoaded, whenPanelLoads } from './panel-loader';
import { panelStrings } from '../contracts/translation';

/** Right-clicks on these transcript parts offer the notebook commands. */
const CONTEXT_MENU: readonly {
  command: string;
  selector: string;
  rank: number;
}[] = [
  {
    command: NotebookCommandIDs.insertExtraction,
    selector: '.jp-AgentPanel-extraction',
    rank: 10
  },
  {
    command: NotebookCommandIDs.insertCode,
    selector: '.jp-AgentPanel-text pre',
    rank: 11
  },
  {
    command: NotebookCommandIDs.replaceActiveCell,
    selector: '.jp-AgentPanel-text pre',
    rank: 12
  },
  {
    command: NotebookCommandIDs.insertMessage,
    selector: '.jp-AgentPanel-text',
    rank: 13
  }
];

/**
 * Puts the conversation into notebooks: buttons on extraction cards, code
 * blocks and answers, context-menu items, and palette commands (including
 * the export of the whole conversation).
 */
export const notebookPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-agent-panel:notebook',
  description:
    'Inserts extracted data, code blocks and answers from the agent panel into notebooks, and exports conversations as notebooks.',
  autoStart: true,
  requires: [IAgentPanel, INotebookTracker],
  optional: [ICommandPalette, ITranslator],
  activate: (
    app: JupyterFrontEnd,
    agentPanel: IAgentPanel,
    tracker: INotebookTracker,
    palette: ICommandPalette | null,
    translator: ITranslator | null
  ): void => {
    const trans = panelStrings(translator);
    loadNotebookCommands(app, agentPanel, tracker, trans);
    // Before the panel restores a conversation, so a notebook tool review
    // pending at a reload is taken up again (docs/protocol.md §12.3).
    whenPanelLoads(agentPanel, 'the notebook tools', async () => {
      const { registerNotebookTools } = await import('../notebook/tools');
      // Offered as long as the application lives, like the commands.
      registerNotebookTools(
        agentPanel,
        tracker,
        app.serviceManager.contents,
        app.restored,
        trans
      );
    });
    addRevealCellCommand(app, tracker, trans);
    addItemActions(agentPanel);
    addMenuItems(app, palette, trans);
  }
};

/**
 * The notebook commands, loaded with the panel; until then the export, the
 * one command that needs no transcript item, loads it.
 */
function loadNotebookCommands(
  app: JupyterFrontEnd,
  agentPanel: IAgentPanel,
  tracker: INotebookTracker,
  trans: TranslationBundle
): void {
  const exportUntilLoaded = app.commands.addCommand(
    NotebookCommandIDs.exportConversation,
    {
      label: exportConversationLabel(trans),
      execute: async args => {
        await panelLoaded(agentPanel);
        return app.commands.execute(
          NotebookCommandIDs.exportConversation,
          args
        );
      },
      describedBy: { args: { type: 'object', properties: {} } }
    }
  );
  whenPanelLoads(agentPanel, 'the notebook commands', async () => {
    const [{ addNotebookCommands }, { NotebookHost }, { addPlanCommand }] =
      await Promise.all([
        import('../notebook/commands'),
        import('../notebook/host'),
        import('../notebook/commands/plan')
      ]);
    // Lives as long as the application, like the commands that use it.
    // eslint-disable-next-line jupyter/require-disposable-ownership
    const host = new NotebookHost({
      tracker,
      kernelSpecs: app.serviceManager.kernelspecs,
      commands: app.commands,
      activate: id => app.shell.activateById(id),
      trans
    });
    const commandOptions: INotebookCommandsOptions = {
      commands: app.commands,
      agentPanel,
      host,
      hitTest: test => app.contextMenuHitTest(test),
      confirm: async (title, body, accept) => {
        const result = await showDialog({
          title,
          body,
          buttons: [Dialog.cancelButton(), Dialog.okButton({ label: accept })]
        });
        return result.button.accept;
      },
      trans
    };
    exportUntilLoaded.dispose();
    addNotebookCommands(commandOptions);
    addPlanCommand(commandOptions);
  });
}

/** "Show the Cell": opens the notebook a card names and scrolls to the cell. */
function addRevealCellCommand(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  trans: TranslationBundle
): void {
  app.commands.addCommand(REVEAL_CELL_COMMAND, {
    label: trans.__('Show the Cell'),
    caption: trans.__('Show the notebook cell the agent named'),
    execute: async args => {
      if (!isCellToReveal(args)) {
        return;
      }
      const { revealCell } = await import('../notebook/reveal-cell');
      const shown = await revealCell(args, tracker, app.commands, id =>
        app.shell.activateById(id)
      );
      if (!shown) {
        Notification.warning(
          trans.__('%1 no longer has that cell.', args.path),
          { autoClose: 5000 }
        );
      }
    },
    describedBy: {
      args: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          cellId: { type: 'string' }
        },
        required: ['path', 'cellId']
      }
    }
  });
}

/** The buttons on transcript items (extractions, code blocks, answers, the plan). */
function addItemActions(agentPanel: IAgentPanel): void {
  agentPanel.addItemAction({
    command: NotebookCommandIDs.insertExtraction,
    target: 'extraction',
    rank: 10
  });
  agentPanel.addItemAction({
    command: NotebookCommandIDs.insertCode,
    target: 'code',
    rank: 10
  });
  agentPanel.addItemAction({
    command: NotebookCommandIDs.replaceActiveCell,
    target: 'code',
    rank: 20
  });
  agentPanel.addItemAction({
    command: NotebookCommandIDs.insertMessage,
    target: 'message',
    rank: 10
  });
  agentPanel.addItemAction({
    command: INSERT_PLAN_COMMAND,
    target: 'plan',
    rank: 10
  });
}

/** The commands in the transcript's context menu and in the palette. */
function addMenuItems(
  app: JupyterFrontEnd,
  palette: ICommandPalette | null,
  trans: TranslationBundle
): void {
  for (const item of CONTEXT_MENU) {
    app.contextMenu.addItem({ ...item, args: { fromContextMenu: true } });
  }
  app.contextMenu.addItem({
    command: NotebookCommandIDs.exportConversation,
    selector: '.jp-AgentPanel-transcript',
    rank: 20
  });

  const category = trans.__('Agent Panel');
  for (const command of [
    ...Object.values(NotebookCommandIDs),
    INSERT_PLAN_COMMAND
  ]) {
    palette?.addItem({ command, category });
  }
}
