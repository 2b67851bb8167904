import { DurableObject } from "cloudflare:workers";

/** Failed sign-ins allowed per client address within the window. */
export const MAX_FAILURES = 5;
export const WINDOW_MS = 10 * 60_000;

/**
 * Counts failed sign-ins for one client address (a Durable Object named
 * `ip:{address}`). Past MAX_FAILURES in WINDOW_MS every attempt from that
 * address is refused until the oldest failure leaves the window.
 */
export class SignInThrottle extends DurableObject<Env> {
  private async failures(now: number): Promise<number[]> {
    const all = (await this.ctx.storage.get<number[]>("failures")) ?? [];
    return all.filter((t) => now - t < WINDOW_MS);
  }

  /** Seconds to wait before trying again, or 0 when an attempt is allowed. */
  async retryAfter(now = Date.now()): Promise<number> {
    const recent = await this.failures(now);
    if (recent.length < MAX_FAILURES) return 0;
    const oldest = recent[recent.length - MAX_FAILURES] ?? now;
    return Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000));
  }

  async recordFailure(now = Date.now()): Promise<void> {
    const recent = await this.failures(now);
    recent.push(now);
    await this.ctx.storage.put("failures", recent.slice(-MAX_FAILURES * 2));
  }

  async reset(): Promise<void> {
    await this.ctx.storage.delete("failures");
  }
}
