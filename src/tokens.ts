import { Token } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import type { ISignal } from '@lumino/signaling';
import type { ChatModel } from './model/chat-model';
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
 * - `message`: a button on each answer text block; args `{turn, item}`.
 * `turn` is the turn entry's key and `item` the item's key (see
 * `ChatModel.findItem`). The button's label, caption and enabled state come
 * from the command, so a command that cannot apply explains why in its caption.
 */
export interface IItemAction {
  command: string;
  target: 'extraction' | 'code' | 'message';
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
