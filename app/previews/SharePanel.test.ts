import { describe, expect, it } from "vitest";
import { timeLeft } from "./SharePanel";

describe("timeLeft", () => {
  it("says how long a share link has left, coarsely", () => {
    expect(timeLeft(7 * 86_400_000)).toBe("7d 0h left");
    expect(timeLeft(3_600_000 + 5 * 60_000)).toBe("1h 5m left");
    expect(timeLeft(59 * 60_000 + 59_000)).toBe("59m left");
    expect(timeLeft(42_000)).toBe("42s left");
    expect(timeLeft(-5)).toBe("0s left");
  });
});
