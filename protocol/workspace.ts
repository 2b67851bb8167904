import type { ErrorBody } from "./errors";

/**
 * Where a workspace's container is in its life:
 * - `starting`: asked to start, not yet answering `exec`;
 * - `running`: answers `exec`;
 * - `stopped`: no container (never started, or stopped after inactivity);
 * - `failed`: the last start or command failed; `error` says why.
 */
export type ContainerState = "starting" | "running" | "stopped" | "failed";

/** `GET /api/workspaces/{id}/status` */
export interface WorkspaceStatus {
  id: string;
  state: ContainerState;
  /** `uname -a` from inside the container, when it is running. */
  kernel?: string;
  error?: ErrorBody;
}
