/** The command that opens and closes the agent panel (IdeLayout registers it; the workspace menu runs it). */
export const AGENT_CHAT_COMMAND = "agentChat.toggle";
