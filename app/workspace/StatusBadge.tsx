import type { BootPhase, ContainerState } from "../../protocol/workspace";

const LABELS: Record<ContainerState, string> = {
  starting: "Starting",
  running: "Running",
  saving: "Saving",
  sleeping: "Sleeping",
  stopped: "Stopped",
  failed: "Failed",
};

const PHASES: Record<BootPhase, string> = {
  "restoring-snapshot": "restoring snapshot",
  "restoring-backup": "restoring your files",
  "starting-container": "starting container",
  ready: "ready",
};

export function StatusBadge({ state, phase }: { state: ContainerState; phase?: BootPhase }) {
  const detail = state === "starting" && phase ? ` · ${PHASES[phase]}` : "";
  return (
    <span
      className={`status-badge status-${state}`}
      data-testid="container-state"
      data-state={state}
      data-phase={phase}
      aria-live="polite"
      title={`${LABELS[state]}${detail}`}
    >
      <span className="status-dot" aria-hidden="true" />
      <span className="status-label">
        {LABELS[state]}
        {detail}
      </span>
    </span>
  );
}
