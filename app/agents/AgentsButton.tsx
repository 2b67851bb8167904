import { useState } from "react";
import type { WorkspaceApi } from "../api/workspace";
import { useRegisterCommands } from "../commands/useCommands";
import { AgentsPanel } from "./AgentsPanel";
import { useAgents } from "./useAgents";
import "./agents.css";

/** The header's Agents button and the panel it opens: agent tokens for the MCP endpoint, and what agents did. */
export function AgentsButton({ api }: { api: WorkspaceApi }) {
  const [open, setOpen] = useState(false);
  const { model, view } = useAgents(api.agents, open);
  useRegisterCommands(
    () => [
      {
        id: "agents.toggle",
        title: "Agents: MCP access tokens and agent activity",
        run: () => setOpen((shown) => !shown),
      },
    ],
    [],
  );
  return (
    <span className="agents-menu">
      <button
        type="button"
        data-testid="agents-button"
        aria-expanded={open}
        title="Agents: let a coding agent (Claude Code, Cursor, …) work in this workspace over MCP"
        aria-label="Agents"
        onClick={() => setOpen(!open)}
      >
        <span className="agents-icon" aria-hidden="true">
          ⚙
        </span>
        <span className="label">Agents</span>
      </button>
      {open && <AgentsPanel model={model} view={view} onClose={() => setOpen(false)} />}
    </span>
  );
}
