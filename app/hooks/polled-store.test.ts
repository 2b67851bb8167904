import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PolledStore } from "./polled-store";

interface CountView {
  count: number;
  error?: string;
}

/** Counts its reads; fails a read while `failing`. */
class Counter extends PolledStore<CountView> {
  reads = 0;
  failing = false;
  constructor() {
    super({ count: 0 }, 1000);
  }
  protected async read(): Promise<Partial<CountView>> {
    this.reads++;
    if (this.failing) throw new Error("the server went away");
    return { count: this.reads };
  }
}

describe("a polled store", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("reads while watched, once for all watchers, and stops with the last one", async () => {
    const store = new Counter();
    const seen: number[] = [];
    store.subscribe(() => seen.push(store.getSnapshot().count));
    await vi.advanceTimersByTimeAsync(5000);
    expect(store.reads).toBe(0);
    const first = store.watch();
    const second = store.watch();
    await vi.advanceTimersByTimeAsync(2500);
    expect(store.reads).toBe(3);
    first();
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.reads).toBe(4);
    second();
    await vi.advanceTimersByTimeAsync(5000);
    expect(store.reads).toBe(4);
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it("keeps the last view and says why while reads fail, until one works", async () => {
    const store = new Counter();
    const stop = store.watch();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getSnapshot()).toEqual({ count: 1, error: undefined });
    store.failing = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.getSnapshot()).toEqual({ count: 1, error: "the server went away" });
    store.failing = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.getSnapshot()).toEqual({ count: 3, error: undefined });
    stop();
  });
});
