/** Sign-in attempts allowed per client address within the window (a success clears them). */
export const MAX_FAILURES = 5;
export const WINDOW_MS = 10 * 60_000;

/** The verdict on one attempt: go ahead (already counted), or wait this many seconds. */
export type AttemptVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Decides on one attempt given the times of earlier ones still counted, and
 * returns the times to keep. An allowed attempt is counted at once, before
 * its password is checked, so attempts that arrive together cannot all pass
 * the check before any of them is recorded.
 */
export function decide(earlier: readonly number[], now: number): { verdict: AttemptVerdict; keep: number[] } {
  const recent = earlier.filter((t) => now - t < WINDOW_MS && t <= now);
  if (recent.length >= MAX_FAILURES) {
    const oldest = recent[recent.length - MAX_FAILURES] ?? now;
    const retryAfterSeconds = Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000));
    return { verdict: { allowed: false, retryAfterSeconds }, keep: recent };
  }
  return { verdict: { allowed: true }, keep: [...recent, now] };
}
