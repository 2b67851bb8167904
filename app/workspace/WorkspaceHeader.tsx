import type { ReactNode } from "react";
import type { WorkspaceAccess } from "../../protocol/members";
import type { WorkspaceSummary } from "../../protocol/workspaces";
import type { WorkspaceApi } from "../api/workspace";
import { NetworkButton } from "../network/NetworkButton";
import { StatusBadge } from "./StatusBadge";
import { WorkspaceDetails } from "./WorkspaceDetails";
import { WorkspaceMenu } from "./WorkspaceMenu";
import type { StatusView } from "./workspace-status-model";

interface Props {
  api: WorkspaceApi;
  name?: string;
  status: StatusView;
  onRetry: () => Promise<void>;
  /** Reloads the status without waking the workspace. */
  onPoll: () => Promise<void>;
  workspaces: WorkspaceSummary[];
  /** Opens another workspace, or the list when given "". */
  onSwitch: (id: string) => void;
  userMenu: ReactNode;
  /** The caller's role here: a member's page says the workspace is shared, and as what. */
  access?: WorkspaceAccess;
  /** The owner's Share button. */
  share?: ReactNode;
  /** Who else is here (app/collab/PresenceAvatars.tsx). */
  presence?: ReactNode;
}

/** The workspace's name (a switcher) and state; its details (id, kernel, image, last save) behind a click. */
export function WorkspaceHeader({
  api,
  name,
  status,
  onRetry,
  onPoll,
  workspaces,
  onSwitch,
  userMenu,
  access,
  share,
  presence,
}: Props) {
  const workspaceId = api.id;
  return (
    <header className="workspace-header">
      <button type="button" className="brand link" onClick={() => onSwitch("")} title="All workspaces">
        Cloud IDE
      </button>
      <select
        className="workspace-switcher"
        aria-label="Workspace"
        data-testid="workspace-name"
        value={workspaceId}
        onChange={(e) => onSwitch(e.target.value)}
      >
        {!workspaces.some((w) => w.id === workspaceId) && <option value={workspaceId}>{name ?? "Workspace"}</option>}
        {workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
        <option value="">All workspaces…</option>
      </select>
      {access?.shared && (
        <span
          className="shared-mark"
          data-testid="shared-mark"
          title="Someone else owns this workspace and shared it with you"
        >
          <span className="label">Shared · </span>
          {access.role}
        </span>
      )}
      <StatusBadge state={status.state} phase={status.phase} />
      <WorkspaceDetails
        workspaceId={workspaceId}
        status={status}
        backups={api.backups}
        onMachine={(machine) => api.setMachine(machine)}
        onChanged={onRetry}
        onRead={onPoll}
      />
      {status.state === "failed" && (
        <span className="status-error" role="alert" data-testid="container-error">
          {status.error?.message ?? "The container failed."}{" "}
          <button type="button" onClick={() => void onRetry()}>
            Retry
          </button>
        </span>
      )}
      <span className="spacer" />
      {presence}
      {share}
      <NetworkButton api={api} />
      <WorkspaceMenu api={api} status={status} onWake={onRetry} onChanged={onPoll} role={access?.role} />
      {userMenu}
    </header>
  );
}
