import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ResizePump } from "./terminal-resize";

describe("the resize pump", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("sends the first size at once, then at most one size a gap, always the latest", () => {
    const sent: string[] = [];
    const pump = new ResizePump((cols, rows) => sent.push(`${cols}x${rows}`), 250, 2);
    pump.resize(92, 14);
    pump.resize(101, 19);
    pump.resize(131, 24);
    expect(sent).toEqual(["92x14"]);
    vi.advanceTimersByTime(250);
    expect(sent).toEqual(["92x14", "131x24"]);
  });

  it("sends the settled size again after the burst, so a stale resize that landed late is overwritten", () => {
    const sent: string[] = [];
    const pump = new ResizePump((cols, rows) => sent.push(`${cols}x${rows}`), 250, 2);
    pump.resize(101, 19);
    pump.resize(131, 24);
    vi.advanceTimersByTime(10_000);
    expect(sent).toEqual(["101x19", "131x24", "131x24", "131x24"]);
  });

  it("does not hold a new size back for the re-sends: it goes one gap after the last resize", () => {
    const sent: string[] = [];
    const pump = new ResizePump((cols, rows) => sent.push(`${cols}x${rows}`), 250, 2);
    pump.resize(101, 19);
    vi.advanceTimersByTime(100);
    pump.resize(101, 19);
    expect(sent).toEqual(["101x19"]);
    // The first re-send went at 250 ms; the next would wait until 750 ms.
    vi.advanceTimersByTime(300);
    pump.resize(131, 24);
    expect(sent).toEqual(["101x19", "101x19"]);
    vi.advanceTimersByTime(100);
    expect(sent).toEqual(["101x19", "101x19", "131x24"]);
  });

  it("sends nothing once stopped", () => {
    const apply = vi.fn();
    const pump = new ResizePump(apply, 250, 2);
    pump.resize(80, 24);
    pump.stop();
    pump.resize(100, 30);
    vi.advanceTimersByTime(10_000);
    expect(apply).toHaveBeenCalledTimes(1);
  });
});
