export namespace CommandIDs {
  export const open = 'agent-panel:open';
  export const newConversation = 'agent-panel:new-conversation';
  export const conversations = 'agent-panel:conversations';
  export const focusComposer = 'agent-panel:focus-composer';
  export const testConnection = 'agent-panel:test-connection';
  export const rewindNotebook = 'agent-panel:rewind-notebook';
}

/** Commands of a notebook output's context menu (not in the palette: they read the click). */
export namespace OutputCommandIDs {
  export const askAboutOutput = 'agent-panel:ask-about-output';
  export const explainError = 'agent-panel:explain-error';
}
