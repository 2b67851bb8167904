import type { ContainerState } from "../../protocol/workspace";

const LABELS: Record<ContainerState, string> = {
  starting: "Starting",
  running: "Running",
  saving: "Saving",
  sleeping: "Sleeping",
  stopped: "Stopped",
  failed: "Failed",
};

export function StatusBadge({ state }: { state: ContainerState }) {
  return (
    <span className={`status-badge status-${state}`} data-testid="container-state" data-state={state}>
      <span className="status-dot" aria-hidden="true" />
      {LABELS[state]}
    </span>
  );
}
