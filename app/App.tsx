import { IdeLayout } from "./components/IdeLayout";
import { WorkspaceHeader } from "./components/WorkspaceHeader";
import { useWorkspaceStatus } from "./hooks/useWorkspaceStatus";

const DEFAULT_WORKSPACE = "default";

/** `/workspaces/{id}` opens that workspace; `/` opens the default one. */
function workspaceFromPath(pathname: string): string {
  const match = /^\/workspaces\/([^/]+)/.exec(pathname);
  return match?.[1] ?? DEFAULT_WORKSPACE;
}

export function App() {
  const workspaceId = workspaceFromPath(window.location.pathname);
  const { status, refresh } = useWorkspaceStatus(workspaceId);
  return (
    <div className="ide">
      <WorkspaceHeader workspaceId={workspaceId} status={status} onRetry={refresh} />
      <IdeLayout workspaceId={workspaceId} />
    </div>
  );
}
