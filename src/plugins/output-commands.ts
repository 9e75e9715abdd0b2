import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { INotebookTracker } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import { CommandIDs, OutputCommandIDs } from '../commands';
import type { IAgentPanel } from '../tokens';
import {
  OUTPUT_CHILD_CLASS,
  outputAtNode,
  type INotebookPanelPort
} from '../notebook/output-context';

/** Outputs in a notebook ("Explain this error" shows only on an error). */
const OUTPUT_SELECTOR = `.jp-Notebook .${OUTPUT_CHILD_CLASS}`;
const NO_ARGS = { args: { type: 'object', properties: {} } } as const;

/**
 * "Ask the agent about this" and "Explain this error" on a notebook
 * output's context menu: attach the output (a chip) and put a question in
 * the message box, for the user to finish or send.
 */
export function addOutputCommands(
  app: JupyterFrontEnd,
  agentPanel: IAgentPanel,
  notebooks: INotebookTracker,
  trans: TranslationBundle
): void {
  const clicked = () => {
    const node = app.contextMenuHitTest(element =>
      element.classList.contains(OUTPUT_CHILD_CLASS)
    );
    const panels: INotebookPanelPort[] = [];
    notebooks.forEach(panel => {
      panels.push(panel as unknown as INotebookPanelPort);
    });
    return node ? outputAtNode(node, panels) : null;
  };
  const ask = async (prompt: string) => {
    const draft = clicked();
    if (!draft) {
      return;
    }
    agentPanel.composerContext.attach(draft);
    await app.commands.execute(CommandIDs.focusComposer, { text: prompt });
  };
  app.commands.addCommand(OutputCommandIDs.askAboutOutput, {
    label: trans.__('Ask the agent about this'),
    caption: trans.__('Attach this output to your next message to the agent'),
    isVisible: () => clicked() !== null,
    execute: () => ask(trans.__('About this output: ')),
    describedBy: NO_ARGS
  });
  app.commands.addCommand(OutputCommandIDs.explainError, {
    label: trans.__('Explain this error'),
    caption: trans.__(
      'Attach this error and its traceback to a message asking the agent to explain it'
    ),
    isVisible: () => clicked()?.attachment.kind === 'error',
    execute: () => ask(trans.__('Explain this error and how to fix it.')),
    describedBy: NO_ARGS
  });
  app.contextMenu.addItem({
    command: OutputCommandIDs.explainError,
    selector: OUTPUT_SELECTOR,
    rank: 0
  });
  app.contextMenu.addItem({
    command: OutputCommandIDs.askAboutOutput,
    selector: OUTPUT_SELECTOR,
    rank: 0.1
  });
}
