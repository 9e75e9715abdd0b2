/**
 * The notebook tools offered on every transport (docs/protocol.md §12):
 * as AG-UI client tools (`RunAgentInput.tools`), and as the answer to a
 * chunk-wire review whose action request carries the notebook tool marker.
 * Loaded with the panel (`plugins/notebook.ts`), not at JupyterLab's start.
 */
import type { INotebookTracker } from '@jupyterlab/notebook';
import type { Contents } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import { DisposableSet, type IDisposable } from '@lumino/disposable';
import {
  NOTEBOOK_TOOLS,
  notebookToolCall
} from '../../contracts/notebook-tools';
import { respond } from '../../wire/decisions';
import type { JsonObject } from '../../wire/json';
import type { IAgentPanel } from '../../tokens';
import { AppliedChanges } from './applied-changes';
import { DeletedNotebooks } from './deleted-notebooks';
import { LiveNotebooks } from './live-notebook';
import { NotebookTools } from './notebook-tools';
import { NotebookRewinder } from './rewind';
import { NotebookToolRunner } from './tool-runner';

/** How long the first call after a page load waits for a notebook the workspace reopens. */
export const NOTEBOOK_LOAD_WAIT_MS = 10_000;

/**
 * Offer the eight tools, and the rewind of their changes (docs/protocol.md §12.11); disposing withdraws them. A call waits for
 * `restored` (JupyterLab's workspace) and the notebooks it opened;
 * `contents` tells which notebooks were deleted.
 */
export function registerNotebookTools(
  agentPanel: IAgentPanel,
  tracker: INotebookTracker,
  contents: Contents.IManager,
  restored: Promise<void>,
  trans: TranslationBundle
): IDisposable {
  const registered = new DisposableSet();
  const deletions = new DeletedNotebooks(contents, tracker);
  registered.add(deletions);
  const notebooks = new LiveNotebooks(tracker, deletions);
  const rewinds = agentPanel.notebookRewinds;
  const applied = new AppliedChanges(notebooks, trans, change =>
    rewinds.log(change)
  );
  const ready = once(() => notebooksLoaded(tracker, restored));
  const runner = new NotebookToolRunner({
    tools: new NotebookTools(notebooks, applied),
    reviews: agentPanel.changeReviews,
    reviewReads: () => agentPanel.settings.reviewNotebookReads,
    threadId: () => agentPanel.model.threadId,
    ready
  });
  registered.add(agentPanel.registerChangeUndo(applied));
  registered.add(
    rewinds.registerRewinder(
      new NotebookRewinder(path => notebooks.find(path), trans, ready)
    )
  );
  for (const tool of NOTEBOOK_TOOLS) {
    registered.add(
      agentPanel.registerClientTool({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        // The registry checks the arguments against `parameters` first.
        run: async (args, { callId, signal }) =>
          withoutImages(
            await runner.run({ name: tool.name, args, callId }, signal, {
              schemaChecked: true
            })
          )
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

/**
 * A client tool's result is the text of a tool message, which no model reads
 * images from: the images stay with the chunk wire's results (docs/protocol.md §16.7).
 */
function withoutImages(result: JsonObject): JsonObject {
  const text = { ...result };
  delete text.images;
  return text;
}

/**
 * The workspace restored and the notebook it reopens loaded: a review left
 * pending at a reload is taken up as soon as the panel loads, before that.
 * Gives up after `NOTEBOOK_LOAD_WAIT_MS` (no notebook was open).
 */
async function notebooksLoaded(
  tracker: INotebookTracker,
  restored: Promise<void>
): Promise<void> {
  await restored;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const opened = new Promise<void>(resolve => {
    const check = () => {
      const current = tracker.currentWidget;
      if (current) {
        tracker.currentChanged.disconnect(check);
        void current.context.ready.then(resolve, resolve);
      }
    };
    tracker.currentChanged.connect(check);
    check();
    timer = setTimeout(() => {
      tracker.currentChanged.disconnect(check);
      resolve();
    }, NOTEBOOK_LOAD_WAIT_MS);
  });
  await opened;
  clearTimeout(timer);
}

/** `make`'s promise, made on the first call and shared by the later ones. */
function once(make: () => Promise<void>): () => Promise<void> {
  let made: Promise<void> | null = null;
  return () => (made ??= make());
}
