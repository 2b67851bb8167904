import type { BackupReason } from "../../protocol/backups";

export const REASONS: Record<BackupReason, string> = {
  manual: "on demand",
  stop: "at sleep",
  daily: "daily",
  "before-restore": "before a restore",
  upgrade: "before a move",
};

/** "3 Dec 14:02", in the person's time zone. */
export function backupTime(iso: string): string {
  const date = new Date(iso);
  const day = date.toLocaleDateString(undefined, { day: "numeric", month: "short" });
  const time = date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", hour12: false });
  return `${day} ${time}`;
}

export function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  if (size < 1024 * 1024 * 1024) return `${(size / 1024 / 1024).toFixed(1)} MB`;
  return `${(size / 1024 / 1024 / 1024).toFixed(2)} GB`;
}
