/** Sign-in attempts allowed per client address within the window (a success clears them). */
export const MAX_FAILURES = 5;
export const WINDOW_MS = 10 * 60_000;

/** How many attempts of one kind one key (an address, a user) may make within a window. */
export interface AttemptLimit {
  max: number;
  windowMs: number;
}

/**
 * What is counted, and its limit. Each is kept apart in the same
 * SignInThrottle object, so one kind does not use up another's allowance.
 */
export const ATTEMPT_LIMITS = {
  /** Password sign-ins per client address (a success clears them). */
  "sign-in": { max: MAX_FAILURES, windowMs: WINDOW_MS },
  /**
   * `cloud-ide login` starts (POST /api/device, unauthenticated) per client
   * address: each opens a DeviceLogin object for ten minutes. Ten leaves a
   * person room for a few tries; a script opening them by the thousand is stopped.
   */
  "device-start": { max: 10, windowMs: WINDOW_MS },
  /**
   * Codes a signed-in person approves on /device that match no waiting login,
   * per person (a right one clears them): guessing the 20^8 codes would hand
   * one's own access to someone else's command line, so it is not left open.
   */
  "device-approve": { max: 10, windowMs: WINDOW_MS },
} as const satisfies Record<string, AttemptLimit>;

export type AttemptKind = keyof typeof ATTEMPT_LIMITS;

/** The verdict on one attempt: go ahead (already counted), or wait this many seconds. */
export type AttemptVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Decides on one attempt given the times of earlier ones still counted, and
 * returns the times to keep. An allowed attempt is counted at once, before
 * its password is checked, so attempts that arrive together cannot all pass
 * the check before any of them is recorded.
 */
export function decide(
  earlier: readonly number[],
  now: number,
  { max, windowMs }: AttemptLimit = ATTEMPT_LIMITS["sign-in"],
): { verdict: AttemptVerdict; keep: number[] } {
  const recent = earlier.filter((t) => now - t < windowMs && t <= now);
  if (recent.length >= max) {
    const oldest = recent[recent.length - max] ?? now;
    const retryAfterSeconds = Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
    return { verdict: { allowed: false, retryAfterSeconds }, keep: recent };
  }
  return { verdict: { allowed: true }, keep: [...recent, now] };
}
