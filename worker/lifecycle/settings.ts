/** Timings of the lifecycle. Production reads wrangler vars; tests may shorten them per workspace. */
export interface LifecycleSettings {
  /** No connections and no requests for this long: save and stop. */
  idleMs: number;
  /** How often the alarm checks idleness and changed files. */
  checkMs: number;
  /** While files change, save at most this often. */
  checkpointMs: number;
  /**
   * How often what programs wrote under /workspace is journaled
   * (files/outside-writes.ts): the most such changes a lost container loses.
   */
  outsideWritesMs: number;
  /**
   * Re-snapshot a workspace in use when its snapshot is this old: snapshots
   * expire 30 days after they are taken or last restored on Cloudflare.
   */
  refreshMs: number;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export const DEFAULT_IDLE_SECONDS = 600;

/** Builds settings from `INACTIVITY_TIMEOUT_SECONDS` (default 10 minutes). */
export function lifecycleSettings(idleSeconds: string | undefined): LifecycleSettings {
  const parsed = Number(idleSeconds);
  const idle = Number.isFinite(parsed) && parsed > 0 ? parsed : DEFAULT_IDLE_SECONDS;
  return {
    idleMs: idle * 1000,
    checkMs: MINUTE,
    checkpointMs: 5 * MINUTE,
    outsideWritesMs: 30_000,
    refreshMs: 20 * DAY,
  };
}

/**
 * The platform's own inactivity timeout is a backstop only: it is longer
 * than the idle limit plus two checks, so the alarm always saves and stops
 * first. Cloudflare allows at most 6 hours.
 */
export function platformTimeoutMs(settings: LifecycleSettings): number {
  return Math.min(settings.idleMs + 2 * settings.checkMs + 60_000, 6 * 60 * MINUTE);
}

/**
 * After a failed start, automatic reconnects (`?wake=0`) leave the workspace
 * alone this long, doubling with each failure in a row up to the maximum,
 * then try again: a container that vanished can meet a passing engine
 * failure, and an open page should bring it back without the user.
 */
const FAILED_RETRY_MIN_MS = 5_000;
const FAILED_RETRY_MAX_MS = 10 * 60_000;

/** The pause after `failures` failed starts in a row (1 or more) before an automatic one. */
export function failedStartPause(failures: number): number {
  return Math.min(FAILED_RETRY_MAX_MS, FAILED_RETRY_MIN_MS * 2 ** Math.min(Math.max(failures, 1) - 1, 20));
}
