import type { StatusView } from "../hooks/useWorkspaceStatus";
import { StatusBadge } from "./StatusBadge";

interface Props {
  workspaceId: string;
  status: StatusView;
  onRetry: () => void;
}

export function WorkspaceHeader({ workspaceId, status, onRetry }: Props) {
  return (
    <header className="workspace-header">
      <span className="brand">Cloud IDE</span>
      <span className="workspace-name" data-testid="workspace-id">
        {workspaceId}
      </span>
      <StatusBadge state={status.state} />
      {status.kernel && (
        <code className="kernel" data-testid="container-kernel" title="uname -a inside the container">
          {status.kernel}
        </code>
      )}
      {status.state === "failed" && (
        <span className="status-error" role="alert" data-testid="container-error">
          {status.error?.message ?? "The container failed."}{" "}
          <button type="button" onClick={onRetry}>
            Retry
          </button>
        </span>
      )}
    </header>
  );
}
