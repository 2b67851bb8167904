import { describe, expect, it } from "vitest";
import type { FileWatcher } from "../files/file-watcher";
import type { Files } from "../files/sandbox-files";
import { WorkspaceCollab } from "./workspace-collab";

/** Durable Object storage in memory: what WorkspaceCollab calls. A put is visible at once, as the real one's is. */
class MemoryStorage {
  constructor(readonly data = new Map<string, unknown>()) {}
  async get<T>(key: string | string[]): Promise<T | Map<string, T> | undefined> {
    if (Array.isArray(key)) return new Map(key.filter((k) => this.data.has(k)).map((k) => [k, this.data.get(k) as T]));
    return this.data.get(key) as T | undefined;
  }
  put(key: string | Record<string, unknown>, value?: unknown): Promise<void> {
    if (typeof key === "string") this.data.set(key, value);
    else for (const [k, v] of Object.entries(key)) this.data.set(k, v);
    return Promise.resolve();
  }
  async delete(keys: string | string[]): Promise<number> {
    let deleted = 0;
    for (const key of Array.isArray(keys) ? keys : [keys]) if (this.data.delete(key)) deleted++;
    return deleted;
  }
  async list<T>({ prefix }: { prefix: string }): Promise<Map<string, T>> {
    const keys = [...this.data.keys()].filter((key) => key.startsWith(prefix)).sort();
    return new Map(keys.map((key) => [key, this.data.get(key) as T]));
  }
  /** The object as it was at this moment, as a Worker killed now would find it on its restart. */
  copy(): MemoryStorage {
    return new MemoryStorage(new Map(this.data));
  }
  keys(prefix: string): string[] {
    return [...this.data.keys()].filter((key) => key.startsWith(prefix));
  }
}

/** The workspace's files: fixed texts, read as the container's file agent answers. */
function files(texts: Record<string, string>): Files {
  return {
    readFileWithStat: async (path: string) => {
      const text = texts[path.replace(/^\/workspace\//, "")];
      if (text === undefined) throw new Error(`no ${path}`);
      return {
        response: new Response(text),
        stat: { type: "file", size: String(new TextEncoder().encode(text).byteLength), etag: `e-${text.length}` },
      };
    },
  } as unknown as Files;
}

const watcher = { listen: () => () => {} } as unknown as FileWatcher;

function collab(storage: MemoryStorage, texts: Record<string, string>): WorkspaceCollab {
  return new WorkspaceCollab({
    storage: storage as unknown as DurableObjectStorage,
    files: files(texts),
    watcher,
    shared: (operation) => operation(),
    wake: async () => {},
  });
}

describe("WorkspaceCollab's edit log", () => {
  const disk = { "notes.md": "# Notes\n", "notes.md.bak": "old\n" };

  it("keeps every edit as it arrives: an object stopped before it stored the state finds them all", async () => {
    const storage = new MemoryStorage();
    const first = collab(storage, disk);
    const { shared } = await first.document("notes.md");
    shared.text.insert(shared.text.length, "one\n");
    shared.text.insert(shared.text.length, "two\n");
    // Killed now: the state is stored 250 ms after the last change, which never comes.
    const restarted = collab(storage.copy(), disk);
    const again = await restarted.document("notes.md");
    expect(again.shared.text.toString()).toBe("# Notes\none\ntwo\n");
    // Another file whose name starts with this one's has no part of its log.
    expect((await restarted.document("notes.md.bak")).shared.text.toString()).toBe("old\n");
  });

  it("drops the log once the state holds it, and edits after that are logged again", async () => {
    const storage = new MemoryStorage();
    const first = collab(storage, disk);
    const { shared } = await first.document("notes.md");
    shared.text.insert(shared.text.length, "one\n");
    expect(storage.keys("collab:update:").length).toBeGreaterThan(0);
    await first.flush();
    expect(storage.keys("collab:update:")).toEqual([]);
    shared.text.insert(shared.text.length, "two\n");
    expect(storage.keys("collab:update:")).toHaveLength(1);

    const restarted = collab(storage.copy(), disk);
    expect((await restarted.document("notes.md")).shared.text.toString()).toBe("# Notes\none\ntwo\n");
  });

  it("numbers a restarted object's edits after the ones it found, so none is overwritten", async () => {
    const storage = new MemoryStorage();
    const { shared } = await collab(storage, disk).document("notes.md");
    shared.text.insert(shared.text.length, "one\n");
    const afterFirst = storage.copy();
    const reopened = await collab(afterFirst, disk).document("notes.md");
    reopened.shared.text.insert(reopened.shared.text.length, "two\n");
    const third = collab(afterFirst.copy(), disk);
    expect((await third.document("notes.md")).shared.text.toString()).toBe("# Notes\none\ntwo\n");
  });
});
