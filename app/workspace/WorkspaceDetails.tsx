import type { StatusView } from "./workspace-status-model";

/** What support needs to know about the workspace, behind a click: id, kernel, image, last save. */
export function WorkspaceDetails({ workspaceId, status }: { workspaceId: string; status: StatusView }) {
  return (
    <details className="workspace-details popover-menu">
      <summary data-testid="workspace-details" aria-label="Workspace details">
        <span className="info-icon" aria-hidden="true">
          i
        </span>
        <span className="label">Details</span>
      </summary>
      <dl className="popover-body">
        <dt>Workspace id</dt>
        <dd>
          <code data-testid="workspace-id">{workspaceId}</code>
        </dd>
        <dt>Kernel</dt>
        <dd>
          <code data-testid="container-kernel" title="uname -a inside the container">
            {status.kernel ?? "not running"}
          </code>
        </dd>
        <dt>Image</dt>
        <dd>
          <code data-testid="container-image">{status.image ?? "not running"}</code>
        </dd>
        <dt>Last save</dt>
        <dd data-testid="details-last-saved">
          {status.lastSavedAt ? new Date(status.lastSavedAt).toLocaleString() : "not saved yet"}
          {status.snapshotId && <code className="snapshot-id"> {status.snapshotId}</code>}
        </dd>
      </dl>
    </details>
  );
}
