import { useState } from "react";
import { MACHINES, type Machine } from "../../protocol/workspace";
import type { BackupsApi } from "../api/backups";
import { useAction } from "../hooks/useAction";
import type { StatusView } from "./workspace-status-model";

type MachineSpec = (typeof MACHINES)[Machine];

function machineSpec(spec: MachineSpec): string {
  return `${spec.vcpu} vCPU, ${spec.memoryGiB} GiB memory, ${spec.diskGB} GB disk`;
}

/** What a size change does, said before it happens: the workspace restarts (saved first, files kept). */
function machineConfirmation(machine: Machine, running: boolean): string {
  const change = `Change the machine to ${machine} (${machineSpec(MACHINES[machine])})?`;
  return running
    ? `${change} This restarts the workspace: it is saved first and your files are kept, but running programs (terminal processes, dev servers) stop.`
    : `${change} The workspace is not running: it starts on the new machine next time.`;
}

/** What support needs to know about the workspace, behind a click: id, kernel, image, how files reach it, last save. */
export function WorkspaceDetails({
  workspaceId,
  status,
  backups,
  onMachine,
  onChanged,
  onRead,
}: {
  workspaceId: string;
  status: StatusView;
  backups?: BackupsApi;
  /** Chooses a new machine size (the workspace restarts on it). */
  onMachine?: (machine: Machine) => Promise<unknown>;
  onChanged?: () => Promise<void>;
  /** Reads the state again without waking the workspace (after a change made while it is not running). */
  onRead?: () => Promise<void>;
}) {
  const action = useAction();
  // Its own action: its busy state and error show beside the size, not beside the image.
  const machineAction = useAction();
  // The size being moved to shows in the select until the restart is done (or failed).
  const [pending, setPending] = useState<Machine>();
  const busy = action.busy !== undefined || machineAction.busy !== undefined;
  // Known asleep too (the size it starts on next), so it can be chosen before a wake.
  const machine = status.system?.machine ?? status.machine;
  const running = status.state === "running";
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
            <button type="button" data-testid="upgrade" disabled={busy} onClick={upgrade}>
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
            status.agentTransport === "stdio" ? (
              "the resident file agent, over its pipes (a connection to it could not be made)"
            ) : (
              "the resident file agent"
            )
          ) : (
            "not running"
          )}
        </dd>
        <dt>Machine</dt>
        <dd data-testid="details-machine">
          {machine && onMachine ? (
            <select
              aria-label="Machine size"
              data-testid="machine-select"
              value={pending ?? machine}
              disabled={busy}
              onChange={(event) => {
                const chosen = event.target.value as Machine;
                if (!window.confirm(machineConfirmation(chosen, running))) return;
                setPending(chosen);
                void machineAction
                  .run(
                    async () => {
                      await onMachine(chosen);
                      await (running ? onChanged : onRead)?.();
                    },
                    running ? `Restarting on ${chosen}…` : `Saving ${chosen}…`,
                  )
                  .finally(() => setPending(undefined));
              }}
            >
              {!(machine in MACHINES) && <option value={machine}>{machine}</option>}
              {Object.entries(MACHINES).map(([name, spec]) => (
                <option key={name} value={name}>
                  {name}: {machineSpec(spec)}
                </option>
              ))}
            </select>
          ) : (
            (machine ?? "not known")
          )}
          {/* Outside the select: the workspace is not running for part of the restart. */}
          {machineAction.busy && (
            <span role="status" data-testid="machine-busy">
              {" "}
              {machineAction.busy}
            </span>
          )}
          {machineAction.error && (
            <span className="status-error" role="alert" data-testid="machine-error">
              {" "}
              {machineAction.error}
            </span>
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
