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

  /** Entries with an id above `after`, oldest first. */
  since(after: number): EgressLogEntry[] {
    return this.entries.filter((e) => e.id > after).map((e) => ({ ...e }));
  }

  clear(): void {
    this.entries = [];
  }
}
