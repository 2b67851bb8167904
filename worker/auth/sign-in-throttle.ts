import { DurableObject } from "cloudflare:workers";
import { type AttemptVerdict, decide } from "./attempt-window";

/**
 * Counts sign-in attempts for one client address (a Durable Object named
 * `ip:{address}`). `attempt()` checks and records in one step with the
 * synchronous storage API: nothing can run between the two.
 */
export class SignInThrottle extends DurableObject<Env> {
  attempt(now = Date.now()): AttemptVerdict {
    const { verdict, keep } = decide(this.ctx.storage.kv.get<number[]>("failures") ?? [], now);
    this.ctx.storage.kv.put("failures", keep);
    return verdict;
  }

  /** The password was right: earlier attempts no longer count. */
  succeeded(): void {
    this.ctx.storage.kv.delete("failures");
  }
}
