import type { EgressLogEntry } from "../../protocol/network";

/** How many requests the log keeps (the newest). */
export const EGRESS_LOG_SIZE = 300;

/**
 * The workspace's last outbound requests, in memory: the Durable Object
 * stays in memory while its container runs, and a log is for seeing why
 * something failed a moment ago, not a record to keep.
 */
export class EgressLog {
  private entries: EgressLogEntry[] = [];
  private nextId = 1;

  constructor(private readonly size = EGRESS_LOG_SIZE) {}

  add(entry: Omit<EgressLogEntry, "id">): number {
    const id = this.nextId++;
    this.entries.push({ id, ...entry });
    if (this.entries.length > this.size) this.entries.splice(0, this.entries.length - this.size);
    return id;
  }

  /** Records how an allowed request ended: its status, or why it got none. */
  settle(id: number, outcome: { status: number | null; error?: string; ms: number }): void {
    const entry = this.entries.find((e) => e.id === id);
    if (!entry) return;
    entry.status = outcome.status;
    entry.ms = outcome.ms;
    if (outcome.error) entry.error = outcome.error;
  }

  /**
   * Entries with an id above `after`, plus any older one still on its way
   * (its status arrives later), oldest first.
   */
  since(after: number): EgressLogEntry[] {
    return this.entries.filter((e) => e.id > after || (e.status === null && !e.error)).map((e) => ({ ...e }));
  }

  clear(): void {
    this.entries = [];
  }
}
