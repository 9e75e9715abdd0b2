/**
 * The notebook tools offered on every transport (docs/protocol.md §12):
 * as AG-UI client tools (`RunAgentInput.tools`), and as the answer to a
 * chunk-wire review whose action request carries the notebook tool marker.
 * Loaded with the panel (`plugins/notebook.ts`), not at JupyterLab's start.
 */
import type { INotebookTracker } from '@jupyterlab/notebook';
import { DisposableSet, type IDisposable } from '@lumino/disposable';
import {
  NOTEBOOK_TOOLS,
  notebookToolCall
} from '../../contracts/notebook-tools';
import { respond } from '../../wire/decisions';
import type { IAgentPanel } from '../../tokens';
import { LiveNotebooks } from './live-notebook';
import { NotebookTools } from './notebook-tools';
import { NotebookToolRunner } from './tool-runner';

/** Offer the eight tools; disposing withdraws them. */
export function registerNotebookTools(
  agentPanel: IAgentPanel,
  tracker: INotebookTracker
): IDisposable {
  const runner = new NotebookToolRunner({
    tools: new NotebookTools(new LiveNotebooks(tracker)),
    reviews: agentPanel.changeReviews,
    reviewReads: () => agentPanel.settings.reviewNotebookReads,
    threadId: () => agentPanel.model.threadId
  });
  const registered = new DisposableSet();
  for (const tool of NOTEBOOK_TOOLS) {
    registered.add(
      agentPanel.registerClientTool({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        run: (args, { callId, signal }) =>
          runner.run({ name: tool.name, args, callId }, signal)
      })
    );
  }
  registered.add(
    agentPanel.registerInterruptHandler({
      handles: action => notebookToolCall(action) !== null,
      decide: async (action, signal) =>
        respond(
          JSON.stringify(await runner.run(notebookToolCall(action)!, signal))
        )
    })
  );
  return registered;
}
