import { describe, expect, it } from "vitest";
import {
  heldBy,
  isFull,
  isTemporary,
  type JournalOp,
  OP_PREFIX,
  opKey,
  SaveJournal,
  superseded,
  toReplay,
} from "./save-journal";

function op(seq: number, kind: JournalOp["kind"], path: string, at = seq * 1000, extra: Partial<JournalOp> = {}) {
  return { seq, kind, path, at, ...(kind === "write" ? { key: `k${seq}`, size: 10 } : {}), ...extra } as JournalOp;
}

/** Storage as a Map and a bucket that only remembers what was deleted: the index is what is under test. */
function journal(limits = { bytes: 100, ops: 5 }) {
  const stored = new Map<string, unknown>();
  const deleted: string[] = [];
  let full = 0;
  const storage = {
    get: async <T>(key: string) => stored.get(key) as T | undefined,
    put: async <T>(key: string, value: T) => {
      stored.set(key, value);
    },
    delete: async (keys: string | string[]) => {
      for (const key of [keys].flat()) stored.delete(key);
      return true;
    },
    list: async <T>({ prefix }: { prefix: string }) =>
      new Map([...stored].filter(([key]) => key.startsWith(prefix))) as Map<string, T>,
  };
  const bucket = {
    list: async () => ({ objects: [], truncated: false }),
    delete: async (keys: string | string[]) => {
      deleted.push(...[keys].flat());
    },
  } as unknown as R2Bucket;
  const subject = new SaveJournal({
    bucket: () => bucket,
    storage,
    prefix: "journal/x/",
    tag: "test",
    onFull: () => {
      full++;
    },
    limits,
  });
  return { subject, stored, deleted, fulls: () => full };
}

describe("the save journal's rules", () => {
  it("keys sort by sequence", () => {
    expect(opKey(2) < opKey(10)).toBe(true);
    expect(opKey(7).startsWith(OP_PREFIX)).toBe(true);
  });

  it("a new write of a path supersedes earlier writes of it, not of others", () => {
    const ops = [op(1, "write", "/workspace/a"), op(2, "write", "/workspace/b"), op(3, "write", "/workspace/a")];
    expect(superseded(ops, { kind: "write", path: "/workspace/a" }).map((o) => o.seq)).toEqual([1, 3]);
  });

  it("a deletion supersedes writes of the path and under it, and keeps itself for the replay", () => {
    const ops = [op(1, "write", "/workspace/d/x"), op(2, "write", "/workspace/dx"), op(3, "write", "/workspace/d")];
    expect(superseded(ops, { kind: "delete", path: "/workspace/d" }).map((o) => o.seq)).toEqual([1, 3]);
  });

  it("a rename keeps the writes before it: their content may be what it moved", () => {
    const ops = [op(1, "write", "/workspace/a"), op(2, "rename", "/workspace/a", 2000, { to: "/workspace/b" })];
    expect(superseded(ops, { kind: "write", path: "/workspace/a" })).toEqual([]);
    expect(superseded(ops, { kind: "rename", path: "/workspace/b" })).toEqual([]);
    // A write after the rename is superseded as usual.
    const later = [...ops, op(3, "write", "/workspace/a")];
    expect(superseded(later, { kind: "write", path: "/workspace/a" }).map((o) => o.seq)).toEqual([3]);
  });

  it("replays what was acknowledged from the start's save on, in order", () => {
    const ops = [
      op(3, "delete", "/workspace/a", 3000),
      op(1, "write", "/workspace/a", 1000),
      op(2, "write", "/b", 2000),
    ];
    expect(toReplay(ops, 2000).map((o) => o.seq)).toEqual([2, 3]);
    expect(toReplay(ops, 0).map((o) => o.seq)).toEqual([1, 2, 3]);
  });

  it("a snapshot begun at T holds what was acknowledged before T", () => {
    const ops = [op(1, "write", "/a", 1000), op(2, "write", "/b", 2000)];
    expect(heldBy(ops, 2000).map((o) => o.seq)).toEqual([1]);
    // Held and replayed never overlap, and together are everything.
    expect(heldBy(ops, 2000).length + toReplay(ops, 2000).length).toBe(ops.length);
  });

  it("is full past its bytes or its count", () => {
    expect(
      isFull([op(1, "write", "/a", 0, { size: 60 }), op(2, "write", "/b", 0, { size: 60 })], { bytes: 100, ops: 5 }),
    ).toBe(true);
    expect(isFull([op(1, "delete", "/a"), op(2, "delete", "/b")], { bytes: 100, ops: 1 })).toBe(true);
    expect(isFull([op(1, "write", "/a", 0, { size: 60 })], { bytes: 100, ops: 5 })).toBe(false);
  });

  it("knows the IDE's own temporary files", () => {
    expect(isTemporary("/workspace/src/.a.ts.save-0123abcd")).toBe(true);
    expect(isTemporary("/workspace/.big.bin.upload-tok12345")).toBe(true);
    expect(isTemporary("/workspace/src/a.ts")).toBe(false);
    expect(isTemporary("/workspace/.env")).toBe(false);
  });
});

describe("SaveJournal's index", () => {
  it("keeps one write per path, drops the old object, and replays writes, deletions and renames in order", async () => {
    const { subject, deleted } = journal();
    await subject.recordWrite("/workspace/a", "k1", 4, "h1");
    await subject.recordWrite("/workspace/a", "k2", 4, "h2");
    await subject.recordRename("/workspace/a", "/workspace/b");
    await subject.recordDelete("/workspace/c");
    await subject.recordDelete("/workspace/.c.save-abcdef12");
    expect(deleted).toEqual(["k1"]);
    const applied: string[] = [];
    const bucket = subject as unknown as { deps: { bucket: () => unknown } };
    bucket.deps.bucket = () => ({ get: async (key: string) => ({ body: key }), delete: async () => {} });
    await subject.replay(0, async (entry, body) => {
      applied.push(`${entry.kind} ${entry.path}${entry.to ? ` ${entry.to}` : ""}${body ? ` ${body}` : ""}`);
    });
    expect(applied).toEqual(["write /workspace/a k2", "rename /workspace/a /workspace/b", "delete /workspace/c"]);
  });

  it("a completed snapshot drops what it holds, in storage and in R2", async () => {
    const { subject, deleted, stored } = journal();
    await subject.recordWrite("/workspace/a", "k1", 4, "h1");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const savedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await subject.recordWrite("/workspace/b", "k2", 4, "h2");
    await subject.dropThrough(savedAt);
    expect(deleted).toEqual(["k1"]);
    expect((await subject.list()).map((entry) => entry.path)).toEqual(["/workspace/b"]);
    await subject.deleteAll();
    expect([...stored.keys()].filter((key) => key.startsWith("journal:"))).toEqual([]);
  });

  it("asks for a checkpoint when past its bounds", async () => {
    const { subject, fulls } = journal({ bytes: 10, ops: 50 });
    await subject.recordWrite("/workspace/a", "k1", 8, "h1");
    expect(fulls()).toBe(0);
    await subject.recordWrite("/workspace/b", "k2", 8, "h2");
    expect(fulls()).toBe(1);
  });
});
