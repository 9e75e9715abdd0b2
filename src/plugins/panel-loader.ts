import type { IAgentPanel } from '../tokens';
import type { ChatPanel } from '../panel/chat-panel';

/**
 * Loads the panel's views the first time they are needed: the side panel is
 * shown, or a command needs the panel. At JupyterLab's start only the
 * sidebar tab, the commands and the settings exist; the views, the
 * transports and the notebook code are fetched here.
 *
 * Other plugins of this package add what must be ready before the panel is
 * built (`beforeLoad`: a transport, the notebook commands); they run
 * alongside the fetch of the panel's own code.
 */
export class PanelLoader {
  constructor(build: () => Promise<ChatPanel>) {
    this._build = build;
  }

  /** Whether loading started. */
  get started(): boolean {
    return this._panel !== null;
  }

  /** Run `task` before the panel is built (at once if loading started). */
  beforeLoad(what: string, task: () => Promise<void>): void {
    if (this._panel) {
      void settle(what, task);
    } else {
      this._tasks.push([what, task]);
    }
  }

  /** Load the panel once; resolves when it is built and its conversation restored. */
  load(): Promise<ChatPanel> {
    if (!this._panel) {
      const tasks = this._tasks.map(([what, task]) => settle(what, task));
      this._tasks = [];
      this._panel = Promise.all(tasks).then(() => this._build());
    }
    return this._panel;
  }

  private readonly _build: () => Promise<ChatPanel>;
  private _tasks: [string, () => Promise<void>][] = [];
  private _panel: Promise<ChatPanel> | null = null;
}

/** A task that fails is reported and does not keep the panel from loading. */
async function settle(what: string, task: () => Promise<void>): Promise<void> {
  try {
    await task();
  } catch (reason) {
    console.error(`Agent Panel: could not load ${what}.`, reason);
  }
}

const loaders = new WeakMap<IAgentPanel, PanelLoader>();

/** Remember the loader of the panel the token provides. */
export function setPanelLoader(panel: IAgentPanel, loader: PanelLoader): void {
  loaders.set(panel, loader);
}

/**
 * Run `task` when the panel loads. The `IAgentPanel` may come from another
 * package (a plugin replaced ours): then there is nothing to wait for.
 */
export function whenPanelLoads(
  panel: IAgentPanel,
  what: string,
  task: () => Promise<void>
): void {
  const loader = loaders.get(panel);
  if (loader) {
    loader.beforeLoad(what, task);
  } else {
    void settle(what, task);
  }
}

/** Load the panel (if ours) before something that needs it. */
export async function panelLoaded(panel: IAgentPanel): Promise<void> {
  await loaders.get(panel)?.load();
}
