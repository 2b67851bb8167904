import { useAction } from "../hooks/useAction";
import { AgentActivityList } from "./AgentActivityList";
import type { AgentsModel, AgentsView } from "./agents-model";
import { NewTokenSecret } from "./NewTokenSecret";
import { TokenForm } from "./TokenForm";
import { TokenList } from "./TokenList";

interface Props {
  model: AgentsModel;
  view: AgentsView;
  onClose: () => void;
}

/** Agent tokens (create, the one-time secret with client configs, revoke) and the live list of agents' calls. */
export function AgentsPanel({ model, view, onClose }: Props) {
  const action = useAction();
  return (
    <aside
      className="floating-panel tall agents-panel"
      role="dialog"
      aria-label="Agents"
      data-testid="agents-panel"
      onKeyDown={(event) => {
        if (event.key === "Escape") onClose();
      }}
    >
      <header>
        <h2>Agents</h2>
        {action.busy && <span className="agents-note">{action.busy}</span>}
        <button type="button" className="link" onClick={onClose} aria-label="Close the agents panel">
          ×
        </button>
      </header>
      <p className="agents-note">
        An agent token lets an MCP client such as Claude Code or Cursor work in this workspace, and nowhere else:
        <code> {view.mcpUrl ?? "…"}</code>. Its commands run in this container under its network policy; it never sees
        secrets.
      </p>
      {(action.error ?? view.error) && (
        <p className="agents-error" role="alert" data-testid="agents-error">
          {action.error ?? view.error}
        </p>
      )}
      {view.created ? (
        <NewTokenSecret created={view.created} onDone={() => model.dismissCreated()} />
      ) : (
        <TokenForm
          disabled={Boolean(action.busy)}
          onCreate={(name, scope, ttl) => action.run(() => model.create(name, scope, ttl), "Creating…")}
        />
      )}
      <TokenList tokens={view.tokens} onRevoke={(id) => void action.run(() => model.revoke(id), "Revoking…")} />
      <AgentActivityList entries={view.activity} />
    </aside>
  );
}
