import type { AgentsApi } from "../api/agents";
import { AgentsPanel } from "./AgentsPanel";
import { useAgents } from "./useAgents";
import "./agents.css";

/**
 * The Agents panel while open (the workspace menu's "Agents…" opens it):
 * agent tokens for the MCP endpoint, and what agents did, polled live.
 */
export function AgentsDialog({ api, onClose }: { api: AgentsApi; onClose: () => void }) {
  const { model, view } = useAgents(api, true);
  return <AgentsPanel model={model} view={view} onClose={onClose} />;
}
