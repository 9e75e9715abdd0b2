export namespace CommandIDs {
  export const open = 'agent-panel:open';
  export const newConversation = 'agent-panel:new-conversation';
  export const conversations = 'agent-panel:conversations';
  export const focusComposer = 'agent-panel:focus-composer';
  export const testConnection = 'agent-panel:test-connection';
}
