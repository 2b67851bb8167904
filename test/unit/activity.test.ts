import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Activity } from "../../worker/activity";
import { failedStartPause, lifecycleSettings, platformTimeoutMs } from "../../worker/lifecycle/settings";

describe("Activity", () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it("is idle only with nothing open and nothing recent", () => {
    const activity = new Activity();
    activity.touch();
    expect(activity.isIdle(60_000)).toBe(false);
    vi.advanceTimersByTime(60_000);
    expect(activity.isIdle(60_000)).toBe(true);
    activity.begin();
    vi.advanceTimersByTime(10 * 60_000);
    expect(activity.isIdle(60_000)).toBe(false);
    activity.end();
    expect(activity.isIdle(60_000)).toBe(false);
    vi.advanceTimersByTime(60_000);
    expect(activity.isIdle(60_000)).toBe(true);
  });

  it("uses the persisted time when this instance has seen nothing, and counts other connections", () => {
    const activity = new Activity();
    expect(activity.isIdle(60_000, Date.now(), Date.now() - 1000)).toBe(false);
    expect(activity.isIdle(60_000, Date.now(), Date.now() - 61_000)).toBe(true);
    expect(activity.isIdle(60_000, Date.now(), 0, 1)).toBe(false);
  });

  it("persists the time of activity, at most every few seconds unless a connection opens or closes", () => {
    const persisted: number[] = [];
    const activity = new Activity((at) => persisted.push(at));
    activity.touch();
    activity.touch();
    expect(persisted).toHaveLength(1);
    activity.begin();
    expect(persisted).toHaveLength(2);
    vi.advanceTimersByTime(6000);
    activity.touch();
    expect(persisted).toHaveLength(3);
  });
});

describe("lifecycle settings", () => {
  it("reads INACTIVITY_TIMEOUT_SECONDS and keeps the platform timeout behind the alarm", () => {
    const settings = lifecycleSettings("120");
    expect(settings.idleMs).toBe(120_000);
    expect(platformTimeoutMs(settings)).toBeGreaterThan(settings.idleMs + settings.checkMs);
    expect(lifecycleSettings("nonsense").idleMs).toBe(600_000);
    expect(platformTimeoutMs(lifecycleSettings("999999"))).toBe(6 * 3600_000);
  });

  it("leaves a failed workspace alone 5 s, doubling with each failure in a row up to 10 minutes", () => {
    expect([1, 2, 3, 4].map(failedStartPause)).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(failedStartPause(8)).toBe(600_000);
    expect(failedStartPause(1000)).toBe(600_000);
    expect(failedStartPause(0)).toBe(5_000);
  });
});
