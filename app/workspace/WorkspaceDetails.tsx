import { MACHINES, type Machine } from "../../protocol/workspace";
import type { BackupsApi } from "../api/backups";
import { useAction } from "../hooks/useAction";
import type { StatusView } from "./workspace-status-model";

/** What support needs to know about the workspace, behind a click: id, kernel, image, how files reach it, last save. */
export function WorkspaceDetails({
  workspaceId,
  status,
  backups,
  onMachine,
  onChanged,
}: {
  workspaceId: string;
  status: StatusView;
  backups?: BackupsApi;
  /** Chooses a new machine size (the workspace restarts on it). */
  onMachine?: (machine: Machine) => Promise<unknown>;
  onChanged?: () => Promise<void>;
}) {
  const action = useAction();
  const upgrade = () => {
    if (
      !window.confirm(
        "Move to the current image? Your files (/workspace and /root) are backed up and come along; programs installed outside them do not (your .cloud-ide/setup.sh runs afterwards). Running programs stop.",
      )
    )
      return;
    void action.run(async () => {
      await backups?.upgrade();
      await onChanged?.();
    }, "Moving…");
  };
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
        <dt>System image</dt>
        <dd>
          <code data-testid="container-image">{status.system?.image ?? status.image ?? "not running"}</code>
          {status.system && (
            <span data-testid="image-current">{status.system.current ? " (current)" : " (an older image)"}</span>
          )}
          {status.system && !status.system.current && backups && (
            <button type="button" data-testid="upgrade" disabled={action.busy !== undefined} onClick={upgrade}>
              {action.busy ?? "Move to the current image"}
            </button>
          )}
          {action.error && <span className="status-error"> {action.error}</span>}
        </dd>
        <dt>File access</dt>
        <dd data-testid="details-file-access">
          {status.agent === "fallback" ? (
            <span className="status-error">
              one process per operation (slower): the file agent could not start in this container
            </span>
          ) : status.agent === "resident" ? (
            "the resident file agent"
          ) : (
            "not running"
          )}
        </dd>
        <dt>Machine</dt>
        <dd data-testid="details-machine">
          {status.system && onMachine ? (
            <select
              aria-label="Machine size"
              data-testid="machine-select"
              value={status.system.machine}
              disabled={action.busy !== undefined}
              onChange={(event) => {
                const machine = event.target.value as Machine;
                if (!window.confirm(`Restart on ${machine}? Your files are kept; running programs stop.`)) return;
                void action.run(async () => {
                  await onMachine(machine);
                  await onChanged?.();
                }, "Restarting…");
              }}
            >
              {!(status.system.machine in MACHINES) && (
                <option value={status.system.machine}>{status.system.machine}</option>
              )}
              {Object.entries(MACHINES).map(([name, spec]) => (
                <option key={name} value={name}>
                  {name}: {spec.vcpu} vCPU, {spec.memoryGiB} GiB memory, {spec.diskGB} GB disk
                </option>
              ))}
            </select>
          ) : (
            (status.system?.machine ?? "not running")
          )}
        </dd>
        <dt>Last backup</dt>
        <dd data-testid="details-last-backup">
          {status.backup?.lastAt ? new Date(status.backup.lastAt).toLocaleString() : "none yet"}
          {status.backup?.lastError && (
            <span className="status-error"> (the latest attempt failed: {status.backup.lastError})</span>
          )}
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
