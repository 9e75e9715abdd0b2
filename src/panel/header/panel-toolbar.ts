import type { TranslationBundle } from '@jupyterlab/translation';
import {
  addIcon,
  historyIcon,
  refreshIcon,
  type Toolbar,
  ToolbarButton
} from '@jupyterlab/ui-components';
import type { CommandRegistry } from '@lumino/commands';
import type { Widget } from '@lumino/widgets';
import { CommandIDs } from '../../commands';
import type { AgentPanelService } from '../../model/agent-panel-service';
import { EndpointLabel } from './endpoint-label';
import { EndpointPicker } from './endpoint-picker';
import { HealthIndicator } from './health-indicator';

export interface IPanelToolbarOptions {
  service: AgentPanelService;
  trans: TranslationBundle;
  commands: CommandRegistry;
  /** The conversations button was pressed. */
  onConversations(): void;
  /** The new conversation button was pressed. */
  onNewConversation(): void;
}

/** The toolbar items the panel updates later. */
export interface IPanelToolbarItems {
  endpoint: EndpointLabel;
  /** Pressed while the list of conversations shows. */
  conversations: ToolbarButton;
}

/**
 * Fill the panel's toolbar: endpoint picker, address, health, test
 * connection, the list of conversations and a new conversation.
 */
export function addPanelToolbarItems(
  toolbar: Toolbar<Widget>,
  {
    service,
    trans,
    commands,
    onConversations,
    onNewConversation
  }: IPanelToolbarOptions
): IPanelToolbarItems {
  toolbar.addItem('endpoint-picker', new EndpointPicker(service, trans));
  const endpoint = new EndpointLabel(service, trans);
  toolbar.addItem('endpoint', endpoint);
  toolbar.addItem('health', new HealthIndicator(service.health, trans));
  toolbar.addItem(
    'test-connection',
    new ToolbarButton({
      icon: refreshIcon,
      tooltip: trans.__(
        'Test the connection to this endpoint and say what is wrong, if anything'
      ),
      className: 'jp-AgentPanel-testConnection',
      onClick: () => void commands.execute(CommandIDs.testConnection)
    })
  );
  const conversations = new ToolbarButton({
    icon: historyIcon,
    tooltip: trans.__('Conversations: open, rename or delete one'),
    className: 'jp-AgentPanel-conversationsButton',
    pressedTooltip: trans.__('Back to the conversation'),
    onClick: onConversations
  });
  toolbar.addItem('conversations', conversations);
  toolbar.addItem(
    'new-conversation',
    new ToolbarButton({
      icon: addIcon,
      tooltip: trans.__('Start a new conversation (the current one is kept)'),
      className: 'jp-AgentPanel-newChat',
      onClick: onNewConversation
    })
  );
  return { endpoint, conversations };
}
