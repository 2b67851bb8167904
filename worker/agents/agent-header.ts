/**
 * Header the Worker sets on the MCP requests it forwards to a Workspace
 * (worker/routes/mcp.ts) and removes from every other request it forwards,
 * so only the MCP route can mark a request as an agent's. The Workspace
 * checks the agent token all the same.
 */
export const AGENT_HEADER = "X-Cloud-IDE-Agent";
