import { describe, expect, it } from "vitest";
import { decide, MAX_FAILURES, WINDOW_MS } from "./attempt-window";

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
