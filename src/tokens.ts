import { Token } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import type { ISignal } from '@lumino/signaling';
import type { ChatModel } from './model/chat-model';
import type { ComposerContext } from './model/composer-context';
import type { PlanTracker } from './model/plan';
import type {
  IEndpointSettings,
  IPanelSettings,
  TransportKind
} from './settings';
import type { IAgentTransport } from './transport/types';

/** Builds the transport for an endpoint of one kind (`http`, `comm`, `agui`). */
export type TransportFactory = (endpoint: IEndpointSettings) => IAgentTransport;

/**
 * Where a command shows up in the transcript, and the arguments it gets:
 * - `extraction`: a button on each extraction card; args `{turn, item}`;
 * - `code`: a button on each code block of an answer; args `{code, language}`;
 * - `message`: a button on each answer text block; args `{turn, item}`;
 * - `plan`: a button on the plan pinned at the top of the panel; args
 *   `{turn, item}` of the `todos` extraction the plan shows.
 * `turn` is the turn entry's key and `item` the item's key (see
 * `ChatModel.findItem`). The button's label, caption and enabled state come
 * from the command, so a command that cannot apply explains why in its caption.
 */
export interface IItemAction {
  command: string;
  target: 'extraction' | 'code' | 'message' | 'plan';
  /** Lower ranks come first. */
  rank?: number;
}

/** The agent side panel, for plugins that add transports or item actions. */
export interface IAgentPanel {
  /** The conversation shown in the panel. */
  readonly model: ChatModel;
  /** The current settings (already validated). */
  readonly settings: IPanelSettings;
  readonly settingsChanged: ISignal<IAgentPanel, IPanelSettings>;
  /** The context the next message takes; a plugin sets where it comes from. */
  readonly composerContext: ComposerContext;
  /** The agent's plan: the conversation's latest `todos` extraction. */
  readonly plan: PlanTracker;
  /** Provide the transport for endpoints of `kind`. */
  registerTransport(
    kind: TransportKind,
    factory: TransportFactory
  ): IDisposable;
  /** Show a command as a button on transcript items. */
  addItemAction(action: IItemAction): IDisposable;
}

export const IAgentPanel = new Token<IAgentPanel>(
  'jupyterlab-agent-panel:IAgentPanel',
  'The agent chat side panel: its conversation, transports and item actions.'
);
