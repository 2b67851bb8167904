import { describe, expect, it } from "vitest";
import { DEFAULT_SPARE_SECONDS, SPARE_TASK, Spare, spareLifetimeMs } from "./spare";

/** Storage and alarms as plain maps: the spare's bookkeeping is what is under test. */
function parts() {
  const stored = new Map<string, unknown>();
  const alarms = new Map<string, number>();
  const storage = {
    get: async <T>(key: string) => stored.get(key) as T | undefined,
    put: async <T>(key: string, value: T) => {
      stored.set(key, value);
    },
    delete: async (key: string) => stored.delete(key),
  };
  const scheduler = {
    schedule: async (name: string, at: number) => {
      alarms.set(name, at);
    },
    cancel: async (name: string) => {
      alarms.delete(name);
    },
  };
  return { stored, alarms, storage, scheduler };
}

describe("spareLifetimeMs", () => {
  it("reads SPARE_WORKSPACE_SECONDS: unset is the default, 0 and off are none", () => {
    expect(spareLifetimeMs(undefined)).toBe(DEFAULT_SPARE_SECONDS * 1000);
    expect(spareLifetimeMs("")).toBe(DEFAULT_SPARE_SECONDS * 1000);
    expect(spareLifetimeMs("90")).toBe(90_000);
    expect(spareLifetimeMs("0")).toBe(0);
    expect(spareLifetimeMs("off")).toBe(0);
  });

  it("refuses what is no number of seconds, naming the variable", () => {
    expect(() => spareLifetimeMs("soon")).toThrow(/SPARE_WORKSPACE_SECONDS is "soon"/);
    expect(() => spareLifetimeMs("-5")).toThrow(/SPARE_WORKSPACE_SECONDS/);
  });
});

describe("Spare", () => {
  it("is claimed once, and the claim takes its record and its alarm away", async () => {
    const { stored, alarms, storage, scheduler } = parts();
    const spare = new Spare(storage, scheduler);
    await spare.hold(1_000);
    expect(spare.held).toBe(true);
    expect(alarms.get(SPARE_TASK)).toBe(1_000);
    const claims = await Promise.all([spare.claim(), spare.claim()]);
    expect(claims).toEqual([true, false]);
    expect(spare.held).toBe(false);
    expect(stored.size).toBe(0);
    expect(alarms.has(SPARE_TASK)).toBe(false);
  });

  it("takes no claim once it is going, and says whether it was an unclaimed spare", async () => {
    const { storage, scheduler } = parts();
    const spare = new Spare(storage, scheduler);
    await spare.hold(1_000);
    expect(spare.isDue(999)).toBe(false);
    expect(spare.isDue(1_000)).toBe(true);
    expect(spare.end()).toBe(true);
    expect(spare.isDiscarded).toBe(true);
    expect(await spare.claim()).toBe(false);
    // A workspace that was never a spare (or was claimed) is going too, but was no spare.
    const claimed = new Spare(storage, scheduler);
    await claimed.hold(1_000);
    await claimed.claim();
    expect(claimed.end()).toBe(false);
  });

  it("comes back from storage after a restart of its object", async () => {
    const { storage, scheduler } = parts();
    await new Spare(storage, scheduler).hold(5_000);
    const again = new Spare(storage, scheduler);
    await again.load();
    expect(again.dueAt).toBe(5_000);
    expect(await again.claim()).toBe(true);
  });
});
