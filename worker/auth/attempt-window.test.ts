import { describe, expect, it } from "vitest";
import { ATTEMPT_LIMITS, decide, MAX_FAILURES, WINDOW_MS } from "./attempt-window";

describe("the sign-in throttle's decision", () => {
  it("counts an allowed attempt before it is checked, and refuses once the window holds the limit", () => {
    let kept: number[] = [];
    const verdicts = [];
    for (let i = 0; i < 30; i++) {
      const { verdict, keep } = decide(kept, 1_000 + i);
      verdicts.push(verdict);
      kept = keep;
    }
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(MAX_FAILURES);
    expect(verdicts.slice(MAX_FAILURES).every((v) => !v.allowed && v.retryAfterSeconds > 0)).toBe(true);
    expect(kept).toHaveLength(MAX_FAILURES);
  });

  it("lets attempts through again once the oldest leaves the window, and says when", () => {
    const full = Array.from({ length: MAX_FAILURES }, (_, i) => i * 1000);
    const refused = decide(full, 60_000).verdict;
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: Math.ceil((WINDOW_MS - 60_000) / 1000) });
    expect(decide(full, WINDOW_MS + 1).verdict).toEqual({ allowed: true });
  });
});

describe("the device login's limits", () => {
  /** Attempts at `now`, one a second from it, through `limit`: the verdicts. */
  function run(count: number, limit: (typeof ATTEMPT_LIMITS)[keyof typeof ATTEMPT_LIMITS]) {
    let kept: number[] = [];
    const verdicts = [];
    for (let i = 0; i < count; i++) {
      const { verdict, keep } = decide(kept, 1_000_000 + i * 1000, limit);
      verdicts.push(verdict);
      kept = keep;
    }
    return { verdicts, kept };
  }

  it("allows 10 login starts per address in 10 minutes, then answers with the wait", () => {
    const limit = ATTEMPT_LIMITS["device-start"];
    expect(limit).toEqual({ max: 10, windowMs: 10 * 60_000 });
    const { verdicts, kept } = run(25, limit);
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(10);
    expect(verdicts.slice(0, 10).every((v) => v.allowed)).toBe(true);
    // The 11th, 10 s after the first: the first leaves the window 590 s later.
    expect(verdicts[10]).toEqual({ allowed: false, retryAfterSeconds: 590 });
    expect(decide(kept, 1_000_000 + limit.windowMs, limit).verdict).toEqual({ allowed: true });
  });

  it("allows 10 unknown codes per person before approvals wait", () => {
    const { verdicts } = run(12, ATTEMPT_LIMITS["device-approve"]);
    expect(verdicts.map((v) => v.allowed)).toEqual([...Array(10).fill(true), false, false]);
  });

  it("keeps the sign-in's own limit as it was", () => {
    expect(ATTEMPT_LIMITS["sign-in"]).toEqual({ max: MAX_FAILURES, windowMs: WINDOW_MS });
    expect(run(6, ATTEMPT_LIMITS["sign-in"]).verdicts.filter((v) => v.allowed)).toHaveLength(MAX_FAILURES);
  });
});
