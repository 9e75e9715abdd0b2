/**
 * What the panel loads when it is first shown (see `panel-loader.ts`): its
 * views, the HTTP transport, the saved conversation and queue, the health
 * checks, and then, at idle time, what the first answer will need.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { IStateDB } from '@jupyterlab/statedb';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import type { AgentPanelService } from '../model/agent-panel-service';
import { ChatPersistence } from '../model/persistence/persistence';
import { QueuePersistence } from '../model/persistence/queue-persistence';
import { ChatPanel } from '../panel/chat-panel';
import {
  agentOutputRendermime,
  idle,
  warmUpRenderers
} from '../panel/common/agent-rendermime';
import { httpTransportFactory } from '../transport/http';

export interface IPanelViewOptions {
  app: JupyterFrontEnd;
  service: AgentPanelService;
  rendermime: IRenderMimeRegistry;
  state: IStateDB | null;
  /** Resolves once the settings apply (the endpoint to check is known). */
  settingsApplied: Promise<void>;
  trans: TranslationBundle;
}

/** Saves a part of the panel in the state database and restores it. */
interface IPersistence extends IDisposable {
  /** Restore, then save on change; resolves to what could not be restored. */
  start(): Promise<string[]>;
}

/**
 * Build the panel around the service. Resolves once the saved conversation
 * and queue are restored, so a command that waited for the panel sees them.
 */
export async function buildPanel(
  options: IPanelViewOptions,
  show: (panel: ChatPanel) => void
): Promise<ChatPanel> {
  const { app, service, rendermime, state, trans } = options;
  service.registerTransport(
    'http',
    httpTransportFactory(app.serviceManager.serverSettings, trans)
  );
  const panel = new ChatPanel({
    service,
    rendermime,
    trans,
    commands: app.commands
  });
  show(panel);
  // Health is polled once the endpoint from the settings is known.
  void options.settingsApplied.then(() => service.health.start());
  // What the first answer needs, loaded and compiled while the user reads.
  void idle().then(() =>
    warmUpRenderers(agentOutputRendermime(rendermime, trans))
  );
  if (state) {
    await app.restored;
    await Promise.all([
      restore(
        'the conversation',
        panel,
        new ChatPersistence(service.model, state)
      ),
      restore('the queue', panel, new QueuePersistence(service.queue, state))
    ]);
  }
  return panel;
}

/**
 * The conversation (and a pending review) survives a page reload; so does
 * the message queue, saved apart (it waits for the user then).
 */
async function restore(
  what: string,
  panel: ChatPanel,
  persistence: IPersistence
): Promise<void> {
  panel.disposed.connect(() => persistence.dispose());
  try {
    for (const problem of await persistence.start()) {
      console.warn(`Agent Panel: ${problem}`);
    }
  } catch (reason) {
    console.error(`Agent Panel: could not restore ${what}.`, reason);
  }
}
