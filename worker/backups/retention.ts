import type { BackupRecord } from "../../protocol/backups";

/** The last this many backups are always kept. */
export const KEEP_LAST = 10;
/** Beyond those, the newest backup of each of this many days is kept. */
export const KEEP_DAILY_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The backups the retention rule lets go: all but the newest {@link KEEP_LAST},
 * the newest of each UTC day of the last {@link KEEP_DAILY_DAYS} days, and the
 * pinned ones. The newest backup is never among them.
 */
export function expiredBackups(records: readonly BackupRecord[], now = Date.now()): BackupRecord[] {
  const newestFirst = [...records].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  const keep = new Set<string>();
  const days = new Set<string>();
  newestFirst.forEach((record, index) => {
    const at = Date.parse(record.createdAt);
    const day = record.createdAt.slice(0, 10);
    if (record.pinned || index < KEEP_LAST) keep.add(record.id);
    else if (now - at < KEEP_DAILY_DAYS * DAY_MS && !days.has(day)) keep.add(record.id);
    // A day's newest backup counts for that day even when kept for another reason.
    if (now - at < KEEP_DAILY_DAYS * DAY_MS) days.add(day);
  });
  return newestFirst.filter((record) => !keep.has(record.id));
}
