import type { AgentActivityEntry } from "../../protocol/agents";

/** The log keeps this many calls. */
export const ACTIVITY_LOG_SIZE = 500;
const PREFIX = "agent-log:";
const NEXT_KEY = "agent-log-next";

type LogStorage = Pick<DurableObjectStorage, "get" | "put" | "delete" | "list">;

/**
 * Every tool call agents made in a workspace, the latest
 * {@link ACTIVITY_LOG_SIZE}, kept in its Durable Object's storage (unlike
 * the network log, it outlives a restart: it is the record of what an
 * outside agent did). Ids grow by one, so a reader asks for what came after
 * the last id it has.
 */
export class ActivityLog {
  private next: number | undefined;
  /** Calls in flight to storage, in order (ids are handed out before the write lands). */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(private readonly storage: LogStorage) {}

  async record(entry: Omit<AgentActivityEntry, "id">): Promise<AgentActivityEntry> {
    this.next ??= (await this.storage.get<number>(NEXT_KEY)) ?? 1;
    const id = this.next++;
    const full: AgentActivityEntry = { id, ...entry };
    const write = this.writing.then(async () => {
      await this.storage.put({ [key(id)]: full, [NEXT_KEY]: id + 1 });
      if (id > ACTIVITY_LOG_SIZE) await this.storage.delete(key(id - ACTIVITY_LOG_SIZE));
    });
    this.writing = write.catch(() => {});
    await write;
    return full;
  }

  /** Entries after `after`, oldest first. */
  async since(after: number): Promise<AgentActivityEntry[]> {
    await this.writing;
    const entries = await this.storage.list<AgentActivityEntry>({ prefix: PREFIX, start: key(after + 1) });
    return [...entries.values()];
  }
}

/** Zero-padded, so keys sort as their ids do. */
function key(id: number): string {
  return `${PREFIX}${String(id).padStart(12, "0")}`;
}
