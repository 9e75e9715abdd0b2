/**
 * What the panel loads when it is first shown (see `panel-loader.ts`): its
 * views, the HTTP transport, the library of conversations (the server's
 * store; the conversation shown last opens), the health checks, and then,
 * at idle time, what the first answer will need.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { IStateDB } from '@jupyterlab/statedb';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { AgentPanelService } from '../model/agent-panel-service';
import { ConversationLibrary } from '../model/library/library';
import { sessionStorageOrNull } from '../model/persistence/saver';
import { ChatPanel } from '../panel/chat-panel';
import { DiffHighlighter } from './code-highlighter';
import {
  agentOutputRendermime,
  idle,
  warmUpRenderers
} from '../panel/common/agent-rendermime';
import { serverAgentThreads } from '../transport/server/agent-threads';
import { ContentsReader } from '../transport/server/contents-reader';
import { serverConversationStore } from '../transport/server/conversation-store';
import { httpTransportFactory } from '../transport/http/http';
// The views' styles come with them, not at JupyterLab's start (style/index.js
// has only the sidebar's and the settings form's).
import '../../style/base.css';
import '../../style/tool-cards.css';
import '../../style/workflow.css';
import '../../style/conversations.css';
import '../../style/branches.css';
import '../../style/rewind.css';

export interface IPanelViewOptions {
  app: JupyterFrontEnd;
  service: AgentPanelService;
  rendermime: IRenderMimeRegistry;
  state: IStateDB | null;
  /** JupyterLab's editor languages, to highlight the reviews' diffs. */
  languages: IEditorLanguageRegistry | null;
  /** Resolves once the settings apply (the endpoint to check is known). */
  settingsApplied: Promise<void>;
  trans: TranslationBundle;
}

/**
 * Build the panel around the service. Resolves once the conversation shown
 * last is open, so a command that waited for the panel sees it.
 */
export async function buildPanel(
  options: IPanelViewOptions,
  show: (panel: ChatPanel) => void
): Promise<ChatPanel> {
  const { app, service, rendermime, state, trans } = options;
  const serverSettings = app.serviceManager.serverSettings;
  service.registerTransport(
    'http',
    httpTransportFactory(serverSettings, trans)
  );
  const library = new ConversationLibrary({
    service,
    store: serverConversationStore(serverSettings),
    threads: serverAgentThreads(serverSettings),
    state,
    trans
  });
  const files = new ContentsReader(app.serviceManager.contents, trans);
  const highlighter = options.languages
    ? // Disposed with the panel (below), like the library.
      // eslint-disable-next-line jupyter/require-disposable-ownership
      new DiffHighlighter(options.languages)
    : null;
  const panel = new ChatPanel({
    service,
    library,
    rendermime,
    trans,
    commands: app.commands,
    readFile: path => files.text(path),
    highlight: highlighter?.highlight,
    // A reload of the tab finds what was typed and not sent.
    drafts: sessionStorageOrNull() ?? undefined
  });
  panel.disposed.connect(() => {
    library.dispose();
    highlighter?.dispose();
  });
  show(panel);
  // Health is polled once the endpoint from the settings is known.
  void options.settingsApplied.then(() => service.health.start());
  // What the first answer needs, loaded and compiled while the user reads.
  void idle().then(() =>
    warmUpRenderers(agentOutputRendermime(rendermime, trans))
  );
  // The conversation's endpoint is known then (its memory may be asked).
  await Promise.all([app.restored, options.settingsApplied]);
  try {
    for (const problem of await library.start()) {
      console.warn(`Agent Panel: ${problem}`);
    }
  } catch (reason) {
    console.error('Agent Panel: could not open the conversations.', reason);
  }
  return panel;
}
