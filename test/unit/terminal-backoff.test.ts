import { describe, expect, it } from "vitest";
import { reconnectDelay } from "../../app/terminal/terminal-connection";

describe("terminal reconnect delay", () => {
  it("retries at once first, then backs off with jitter", () => {
    expect(reconnectDelay(0, 0.7)).toBe(0);
    expect(reconnectDelay(1, 1)).toBe(500);
    expect(reconnectDelay(1, 0)).toBe(250);
    expect(reconnectDelay(3, 1)).toBe(2000);
  });

  it("never gives up and never waits more than 15 s", () => {
    for (const attempt of [10, 100, 10_000]) {
      const delay = reconnectDelay(attempt, 1);
      expect(Number.isFinite(delay)).toBe(true);
      expect(delay).toBe(15_000);
    }
  });
});
