/** The agent panel as other plugins see it (provided as `IAgentPanel`). */
import type { IDisposable } from '@lumino/disposable';
import type { ISignal } from '@lumino/signaling';
import type {
  IChangeUndo,
  IInterruptHandler,
  IItemAction,
  TransportFactory
} from '../contracts/extension-points';
import type { IPanelSettings, TransportKind } from '../contracts/settings';
import type { IChangeReviews } from './conversation/change-reviews';
import type { IConversation } from './conversation/chat-model';
import type { IClientTool } from './conversation/chat/client-tools';
import type { IComposerContext } from './conversation/composer-context';
import type { IPlanTracker } from './conversation/plan';
import type { INotebookRewinds } from './conversation/rewinds';

/** The agent side panel, for plugins that add transports, item actions or client tools. */
export interface IAgentPanel {
  /** The conversation shown in the panel (another one after `modelChanged`). */
  readonly model: IConversation;
  /** The panel shows another conversation (opened from the list, or New). */
  readonly modelChanged: ISignal<IAgentPanel, IConversation>;
  /** The current settings (already validated). */
  readonly settings: IPanelSettings;
  readonly settingsChanged: ISignal<IAgentPanel, IPanelSettings>;
  /** The context the next message takes; a plugin sets where it comes from. */
  readonly composerContext: IComposerContext;
  /** The agent's plan: the shown conversation's latest `todos` extraction. */
  readonly plan: IPlanTracker;
  /** Notebook changes the agent proposes, waiting for the user's review. */
  readonly changeReviews: IChangeReviews;
  /**
   * The notebook changes the agent applied, logged per turn, and the rewind
   * of turns (docs/protocol.md §12.11): `rewind(turns)` shows the card that
   * brings the notebooks back to before them.
   */
  readonly notebookRewinds: INotebookRewinds;
  /** Provide the transport for endpoints of `kind`. */
  registerTransport(
    kind: TransportKind,
    factory: TransportFactory
  ): IDisposable;
  /** Show a command as a button on transcript items. */
  addItemAction(action: IItemAction): IDisposable;
  /**
   * Offer `tool` to the agent on every AG-UI run (`RunAgentInput.tools`):
   * when the agent calls it, the panel runs it and continues the run with
   * its result. Disposing the returned handle withdraws it. Throws when a
   * tool of that name is registered already.
   */
  registerClientTool(tool: IClientTool): IDisposable;
  /**
   * Answer the reviews whose every row `handler` (or another) takes, in the
   * panel's place; disposing the returned handle withdraws it.
   */
  registerInterruptHandler(handler: IInterruptHandler): IDisposable;
  /**
   * Let the cards of the calls that changed a notebook take their change
   * back (the notebook tools do); disposing the handle withdraws it.
   */
  registerChangeUndo(undo: IChangeUndo): IDisposable;
}
