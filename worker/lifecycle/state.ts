import type { ErrorBody } from "../../protocol/errors";
import type { BootPhase } from "../../protocol/workspace";

/**
 * Where a workspace's container is in its life: one value, changed only by
 * {@link transition}. Callers ask the lifecycle, never a flag.
 *
 *   stopped ──▶ starting ──▶ running ⇄ saving
 *   sleeping ─▶    │  ▲          │ └──▶ stopping ──▶ sleeping
 *   failed ───▶    ▼  │          └─(vanished)─▶ stopped
 *               failed ─(start fresh)─▶ stopped
 *   any ──▶ deleted (final)
 */
export type LifecycleState =
  /** No container, and not on purpose (new, or it vanished): any use starts one. */
  | { kind: "stopped" }
  /** No container, on purpose (Save and sleep, idle): automatic reconnects leave it asleep. */
  | { kind: "sleeping" }
  /** A start under way; everyone who needs the container waits for `done`. */
  | { kind: "starting"; phase?: BootPhase; failures: number; done: Promise<void> }
  | { kind: "running"; kernel?: string; startedAt: number }
  /** Running, while a snapshot is taken (locally the container is frozen meanwhile). */
  | { kind: "saving"; kernel?: string; startedAt: number }
  /** Destroying the container after a save; starts wait for `done`. */
  | { kind: "stopping"; done: Promise<void> }
  /** The last start failed; automatic reconnects wait until `retryAt`. */
  | { kind: "failed"; failure: ErrorBody; failures: number; retryAt: number }
  /** Deleted: nothing starts it again. */
  | { kind: "deleted" };

export type StateKind = LifecycleState["kind"];

/** Every transition the lifecycle makes; anything else is refused (and deleted is final). */
const ALLOWED: { readonly [From in StateKind]: readonly StateKind[] } = {
  stopped: ["starting", "deleted"],
  sleeping: ["starting", "deleted"],
  failed: ["starting", "stopped", "deleted"],
  starting: ["starting", "running", "failed", "deleted"],
  running: ["running", "saving", "stopping", "stopped", "deleted"],
  saving: ["saving", "running", "deleted"],
  // A destroy that failed leaves the container running.
  stopping: ["sleeping", "running", "deleted"],
  deleted: [],
};

export function canTransition(from: StateKind, to: StateKind): boolean {
  return ALLOWED[from].includes(to);
}
