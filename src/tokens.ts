import { Token } from '@lumino/coreutils';
import type { IAgentPanel as IAgentPanelApi } from './model/agent-panel';
export type {
  IItemAction,
  TransportFactory
} from './contracts/extension-points';
export type { IConversation } from './model/conversation/chat-model';
export type { ChatEntry } from './model/conversation/chat/chat-entries';
export type {
  IClientTool,
  IClientToolContext
} from './model/conversation/chat/client-tools';
export type {
  IComposerContext,
  IContextSource
} from './model/conversation/composer-context';
export type { IPlan, IPlanTracker } from './model/conversation/plan';

/** The agent side panel, for plugins that add transports, item actions or client tools. */
export type IAgentPanel = IAgentPanelApi;

export const IAgentPanel = new Token<IAgentPanel>(
  'jupyterlab-agent-panel:IAgentPanel',
  'The agent chat side panel: its conversation, transports, item actions and client tools.'
);
