import { describe, expect, it } from "vitest";
import type { BackupRecord } from "../../protocol/backups";
import { expiredBackups } from "./retention";

const HOUR = 60 * 60 * 1000;
const NOW = Date.parse("2026-12-31T12:00:00Z");

function record(id: string, hoursAgo: number, pinned = false): BackupRecord {
  return {
    id,
    createdAt: new Date(NOW - hoursAgo * HOUR).toISOString(),
    size: 1,
    sha256: "0",
    dirs: ["/workspace"],
    image: "i",
    reason: "stop",
    pinned,
  };
}

describe("expiredBackups", () => {
  it("keeps the last 10 whatever their age", () => {
    const records = Array.from({ length: 10 }, (_, i) => record(`r${i}`, 24 * 100 + i));
    expect(expiredBackups(records, NOW)).toEqual([]);
  });

  it("beyond the last 10, keeps the newest of each day for 30 days", () => {
    // 12 today (every hour), then 3 a day for 40 days back.
    const today = Array.from({ length: 12 }, (_, i) => record(`t${i}`, i * 0.5));
    const older = Array.from({ length: 40 }, (_, d) =>
      [1, 2, 3].map((h) => record(`d${d + 1}h${h}`, 24 * (d + 1) + h - 12)),
    ).flat();
    const expired = new Set(expiredBackups([...older, ...today], NOW).map((r) => r.id));
    // Today's two oldest go: today already has a kept backup.
    expect(expired.has("t10")).toBe(true);
    expect(expired.has("t11")).toBe(true);
    expect(expired.has("t0")).toBe(false);
    // Within 30 days: the day's newest (h1) stays, the rest go.
    expect(expired.has("d5h1")).toBe(false);
    expect(expired.has("d5h2")).toBe(true);
    expect(expired.has("d5h3")).toBe(true);
    // Older than 30 days: all go.
    expect(expired.has("d35h1")).toBe(true);
  });

  it("keeps pinned backups of any age", () => {
    const records = [...Array.from({ length: 10 }, (_, i) => record(`n${i}`, i)), record("old", 24 * 365, true)];
    expect(expiredBackups(records, NOW)).toEqual([]);
    const unpinned = [...records.slice(0, 10), record("old", 24 * 365)];
    expect(expiredBackups(unpinned, NOW).map((r) => r.id)).toEqual(["old"]);
  });
});
