import { describe, expect, it } from "vitest";
import { latestWrites, OutsideWrites, parseHashes, parseListing, worthNoting } from "./outside-writes";
import type { JournalOp } from "./save-journal";

const hash = (n: number) => String(n).repeat(64).slice(0, 64);

describe("what a pass reads", () => {
  it("parses find's size, tab, path, NUL; keeps /workspace's files and drops the IDE's temporary ones", () => {
    const out = "12\t/workspace/a.txt\0" + "0\t/workspace/dir/new line\nname\0" + "5\t/workspace/.b.txt.save-x1y2\0";
    expect(parseListing(`${out}3\t/etc/passwd\0`)).toEqual([
      { path: "/workspace/a.txt", size: 12 },
      { path: "/workspace/dir/new line\nname", size: 0 },
    ]);
    expect(parseListing("")).toEqual([]);
  });

  it("parses sha256sum -z: the hash, two spaces, the path unescaped", () => {
    const out = `${hash(1)}  /workspace/a b\0${hash(2)}  /workspace/c\\d\0`;
    expect(parseHashes(out)).toEqual(
      new Map([
        ["/workspace/a b", hash(1)],
        ["/workspace/c\\d", hash(2)],
      ]),
    );
  });

  it("knows each path's journaled bytes, carried by renames, until a deletion or a rename over it", () => {
    const ops: JournalOp[] = [
      { seq: 1, kind: "write", path: "/workspace/a", sha256: hash(1), at: 1 },
      { seq: 2, kind: "write", path: "/workspace/d/x", sha256: hash(2), at: 2 },
      { seq: 3, kind: "write", path: "/workspace/b", sha256: hash(3), at: 3 },
      { seq: 4, kind: "delete", path: "/workspace/d", at: 4 },
      { seq: 5, kind: "rename", path: "/workspace/c", to: "/workspace/b", at: 5 },
      { seq: 6, kind: "write", path: "/workspace/a", sha256: hash(6), at: 6 },
      { seq: 7, kind: "write", path: "/workspace/e/y", sha256: hash(7), at: 7 },
      { seq: 8, kind: "rename", path: "/workspace/e", to: "/workspace/f", at: 8 },
    ];
    expect(latestWrites(ops)).toEqual(
      new Map([
        ["/workspace/a", hash(6)],
        ["/workspace/f/y", hash(7)],
      ]),
    );
  });

  it("leaves out moves and deletions of what was made since the last pass: the pass lists what they made", () => {
    expect(
      worthNoting([
        { kind: "create", path: "/workspace/.git/index.lock" },
        { kind: "rename", from: "/workspace/.git/index.lock", to: "/workspace/.git/index" },
        { kind: "create", path: "/workspace/tmp" },
        { kind: "rename", from: "/workspace/tmp/x", to: "/workspace/y" },
        { kind: "delete", path: "/workspace/y" },
        { kind: "rename", from: "/workspace/old", to: "/workspace/new" },
        { kind: "delete", path: "/workspace/in-the-snapshot" },
      ]),
    ).toEqual([
      { kind: "rename", from: "/workspace/old", to: "/workspace/new" },
      { kind: "delete", path: "/workspace/in-the-snapshot" },
    ]);
    // Made, journaled by a pass, then moved: its creation's event came after that pass.
    const late = worthNoting(
      [
        { kind: "create", path: "/workspace/x" },
        { kind: "rename", from: "/workspace/x", to: "/workspace/y" },
      ],
      new Set(["/workspace/x"]),
    );
    expect(late).toEqual([{ kind: "rename", from: "/workspace/x", to: "/workspace/y" }]);
  });

  it("after a snapshot, what was made before it is no longer new: its move and deletion are noted", async () => {
    const { subject, calls } = rig({ missing: ["/workspace/made-before"] });
    subject.changes([
      { type: "created", path: "made-before" },
      { type: "created", path: "dir", directory: true },
    ]);
    await subject.snapshotTaken();
    subject.changes([
      { type: "moved", from: "dir", path: "moved", directory: true },
      { type: "deleted", path: "made-before" },
    ]);
    expect(await subject.pass()).toMatchObject({ kind: "journaled", renames: 1, deletes: 1 });
    expect(calls).toEqual(["rename /workspace/dir /workspace/moved", "delete /workspace/made-before"]);
  });
});

/** A container whose scripts are answered from fields, and a journal that records what it was told. */
function rig(options: { listing?: string; hashes?: string; missing?: string[]; journaled?: JournalOp[] } = {}) {
  const scripts: string[] = [];
  const calls: string[] = [];
  let running = true;
  let failRecord = false;
  const sandbox = {
    stdout: async (argv: string[]) => {
      const script = argv[2] ?? "";
      scripts.push(script);
      if (script.includes("find ")) return options.listing ?? "";
      if (script.includes("sha256sum")) return options.hashes ?? "";
      if (script.includes("for p;")) return (options.missing ?? []).map((path) => `${path}\0`).join("");
      return "";
    },
  };
  const files = {
    readFileWithStat: async (path: string) => ({
      response: new Response(`bytes of ${path}`),
      stat: { size: BigInt(`bytes of ${path}`.length) },
    }),
  };
  const journal = {
    enabled: true,
    stage: (body: ReadableStream<Uint8Array>) => ({
      key: "k",
      done: new Response(body).text().then((text) => ({ size: text.length, sha256: `sha:${text}` })),
    }),
    recordWrite: async (path: string) => {
      if (failRecord) throw new Error("R2 is down");
      calls.push(`write ${path}`);
    },
    recordDelete: async (path: string) => void calls.push(`delete ${path}`),
    recordRename: async (from: string, to: string) => void calls.push(`rename ${from} ${to}`),
    discard: async () => void calls.push("discard"),
    list: async () => options.journaled ?? [],
  };
  const subject = new OutsideWrites({
    sandbox,
    files: files as never,
    journal: journal as never,
    isRunning: () => running,
    shared: (operation) => operation(),
    checkpoint: async () => void calls.push("checkpoint"),
    tag: "test",
    limits: { files: 3, bytes: 1000 },
  });
  const advanced = () => scripts.filter((script) => script.includes("mv ")).length;
  return {
    subject,
    scripts,
    calls,
    advanced,
    stop: () => {
      running = false;
    },
    failRecords: () => {
      failRecord = true;
    },
  };
}

describe("a pass", () => {
  it("with nothing changed journals nothing and moves its mark on", async () => {
    const { subject, calls, advanced } = rig();
    expect(await subject.pass()).toEqual({ kind: "quiet" });
    expect(calls).toEqual([]);
    expect(advanced()).toBe(1);
  });

  it("journals the files a program changed, skipping those whose bytes the journal holds already", async () => {
    const { subject, calls, advanced } = rig({
      listing: "4\t/workspace/new.txt\0" + "4\t/workspace/saved-in-the-ide.txt\0",
      hashes: `${hash(1)}  /workspace/new.txt\0${hash(2)}  /workspace/saved-in-the-ide.txt\0`,
      journaled: [{ seq: 1, kind: "write", path: "/workspace/saved-in-the-ide.txt", sha256: hash(2), at: 1 }],
    });
    expect(await subject.pass()).toEqual({ kind: "journaled", writes: 1, skipped: 1, renames: 0, deletes: 0 });
    expect(calls).toEqual(["write /workspace/new.txt"]);
    expect(advanced()).toBe(1);
  });

  it("skips a file gone since the listing (no hash)", async () => {
    const { subject, calls } = rig({ listing: "4\t/workspace/gone.txt\0", hashes: "" });
    expect(await subject.pass()).toMatchObject({ kind: "journaled", writes: 0, skipped: 1 });
    expect(calls).toEqual([]);
  });

  it("notes the watcher's renames, and its deletions of what is still gone, in order, before the writes", async () => {
    const { subject, calls } = rig({
      listing: "4\t/workspace/b/x\0",
      hashes: `${hash(1)}  /workspace/b/x\0`,
      missing: ["/workspace/old.txt"],
    });
    subject.changes([
      { type: "deleted", path: "old.txt" },
      { type: "moved", from: "a", path: "b", directory: true },
      { type: "deleted", path: "back-again.txt" },
      { type: "modified", path: "b/x" },
    ]);
    expect(await subject.pass()).toEqual({ kind: "journaled", writes: 1, skipped: 0, renames: 1, deletes: 1 });
    expect(calls).toEqual(["delete /workspace/old.txt", "rename /workspace/a /workspace/b", "write /workspace/b/x"]);
  });

  it("leaves out the moves and deletions the IDE journaled itself", async () => {
    const { subject, calls } = rig({
      missing: ["/workspace/deleted-in-the-ide"],
      journaled: [
        { seq: 1, kind: "rename", path: "/workspace/a", to: "/workspace/b", at: 1 },
        { seq: 2, kind: "delete", path: "/workspace/deleted-in-the-ide", at: 2 },
      ],
    });
    subject.changes([
      { type: "moved", from: "a", path: "b" },
      { type: "deleted", path: "deleted-in-the-ide" },
      { type: "moved", from: "b", path: "c" },
    ]);
    expect(await subject.pass()).toMatchObject({ kind: "journaled", renames: 1, deletes: 0 });
    expect(calls).toEqual(["rename /workspace/b /workspace/c"]);
  });

  it("past its limits takes a checkpoint instead, which moves its mark on", async () => {
    const listing = ["a", "b", "c", "d"].map((name) => `1\t/workspace/node_modules/${name}\0`).join("");
    const { subject, calls, advanced, scripts } = rig({ listing });
    expect(await subject.pass()).toEqual({ kind: "checkpoint", files: 4, bytes: 4 });
    expect(calls).toEqual(["checkpoint"]);
    // Not the pass itself: a checkpoint that failed must leave the mark where it was.
    expect(advanced()).toBe(0);
    await subject.snapshotTaken();
    expect(scripts.at(-1)).toContain("touch -r /var/lib/cloud-ide/saved-at /var/lib/cloud-ide/journaled-at");
    expect(scripts.at(-1)).toContain("-nt /var/lib/cloud-ide/journaled-at");
    const big = rig({ listing: "5000\t/workspace/big.bin\0" });
    expect(await big.subject.pass()).toMatchObject({ kind: "checkpoint", bytes: 5000 });
  });

  it("that fails keeps its mark and the watcher's events for the next one", async () => {
    const { subject, calls, advanced, failRecords } = rig({
      listing: "4\t/workspace/x\0",
      hashes: `${hash(1)}  /workspace/x\0`,
    });
    subject.changes([{ type: "moved", from: "a", path: "b" }]);
    failRecords();
    await expect(subject.pass()).rejects.toThrow("R2 is down");
    expect(advanced()).toBe(0);
    calls.length = 0;
    await expect(subject.pass()).rejects.toThrow("R2 is down");
    // The rename was noted again: nothing the watcher saw is forgotten by a failed pass.
    expect(calls).toEqual(["rename /workspace/a /workspace/b"]);
  });

  it("does nothing while no container runs, and starts nothing", async () => {
    const { subject, scripts, stop } = rig({ listing: "4\t/workspace/x\0" });
    stop();
    expect(await subject.pass()).toEqual({ kind: "quiet" });
    expect(scripts).toEqual([]);
  });

  it("lists /workspace by ctime against its mark, pruning tools' caches", async () => {
    const { subject, scripts } = rig();
    await subject.pass();
    const listing = scripts.find((script) => script.includes("find "));
    expect(listing).toContain("-cnewer /var/lib/cloud-ide/journaled-at");
    expect(listing).toContain("*/node_modules/.vite");
    expect(listing).toMatch(/find \/workspace -xdev/);
  });
});
