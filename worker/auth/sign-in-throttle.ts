import { DurableObject } from "cloudflare:workers";
import { ATTEMPT_LIMITS, type AttemptKind, type AttemptVerdict, decide } from "./attempt-window";

/** Where each kind's times are kept ("failures": the sign-in's, named before there were others). */
const STORAGE_KEYS: Record<AttemptKind, string> = {
  "sign-in": "failures",
  "device-start": "device-starts",
  "device-approve": "device-approvals",
};

/**
 * Counts attempts for one key: sign-ins and device-login starts per client
 * address (a Durable Object named `ip:{address}`), device-code approvals per
 * person (`user:{id}`). `attempt()` checks and records in one step with the
 * synchronous storage API: nothing can run between the two.
 */
export class SignInThrottle extends DurableObject<Env> {
  attempt(kind: AttemptKind = "sign-in", now = Date.now()): AttemptVerdict {
    const key = STORAGE_KEYS[kind];
    const { verdict, keep } = decide(this.ctx.storage.kv.get<number[]>(key) ?? [], now, ATTEMPT_LIMITS[kind]);
    this.ctx.storage.kv.put(key, keep);
    return verdict;
  }

  /** The attempt succeeded (the password, the code was right): earlier ones of its kind no longer count. */
  succeeded(kind: AttemptKind = "sign-in"): void {
    this.ctx.storage.kv.delete(STORAGE_KEYS[kind]);
  }
}
