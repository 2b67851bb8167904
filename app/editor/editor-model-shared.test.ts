import { undoDepth } from "@codemirror/commands";
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { MAX_SHARED_FILE_BYTES, SHARED_TEXT } from "../../protocol/collab";
import { EditorModel } from "./editor-model";
import { memoryFiles } from "./memory-files.fixture";
import type { SharedDocuments, SharedText } from "./shared-buffer";

// The editor model's decisions about shared buffers (issue 24), against fakes (this unit test only):
// files in memory, and a "server" of Y.Docs each page's document is kept in step with directly.

/** What happened, in order: joins, reads and saves. */
type Log = string[];

/** The server's documents and a page's way to them: each page's Y.Doc is kept in step with the server's. */
function sharedServer(disk: ReturnType<typeof memoryFiles>, log: Log) {
  const documents = new Map<string, Y.Doc>();
  const refused = new Set<string>();
  const joined: { path: string; destroyed: boolean }[] = [];
  const document = (path: string) => {
    let doc = documents.get(path);
    if (!doc) {
      doc = new Y.Doc();
      doc.getText(SHARED_TEXT).insert(0, disk.text(path) ?? "");
      documents.set(path, doc);
    }
    return doc;
  };
  const sharing: SharedDocuments = {
    open(path): SharedText {
      log.push(`join ${path}`);
      const page = new Y.Doc();
      const entry = { path, destroyed: false };
      joined.push(entry);
      const fromServer = (update: Uint8Array, origin: unknown) => {
        if (origin !== page) Y.applyUpdate(page, update, "server");
      };
      const synced = (async () => {
        await Promise.resolve();
        if (refused.has(path)) throw new Error(`"${path}" could not be opened as a shared document.`);
        const server = document(path);
        Y.applyUpdate(page, Y.encodeStateAsUpdate(server), "server");
        page.on("update", (update: Uint8Array, origin: unknown) => {
          if (origin !== "server") Y.applyUpdate(server, update, page);
        });
        server.on("update", fromServer);
      })();
      synced.catch(() => {});
      return {
        text: page.getText(SHARED_TEXT),
        synced,
        extension: () => [],
        async save() {
          log.push(`collab.save ${path}`);
          const text = document(path).getText(SHARED_TEXT).toString();
          disk.write(path, text);
          return { file: disk.info(path), text };
        },
        destroy: () => {
          entry.destroyed = true;
          documents.get(path)?.off("update", fromServer);
          page.destroy();
        },
      };
    },
  };
  /** A change on disk, merged into the shared text as the server does (here: taken whole). */
  const diskChange = (path: string, text: string, merged = text) => {
    disk.write(path, text);
    const shared = document(path).getText(SHARED_TEXT);
    document(path).transact(() => {
      shared.delete(0, shared.length);
      shared.insert(0, merged);
    }, "disk");
  };
  return {
    sharing,
    documents,
    refused,
    joined,
    diskChange,
    text: (path: string) => document(path).getText(SHARED_TEXT),
  };
}

function setUp(initial: Record<string, string | Uint8Array>) {
  const log: Log = [];
  const disk = memoryFiles(initial, log);
  const server = sharedServer(disk, log);
  return { log, disk, server, page: () => new EditorModel(disk.files, server.sharing) };
}

const changed = (model: EditorModel, path: string) =>
  model.onFileEvent({ kind: "changes", changes: [{ path, type: "modified" }] });

describe("the editor model's shared buffers", () => {
  it("joins a text file's shared document while reading its bytes, and shows the shared text", async () => {
    const { log, server, page } = setUp({ "a.ts": "one\n" });
    const model = page();
    await model.open("a.ts");
    // The join starts before the read, not after it.
    expect(log.slice(0, 2)).toEqual(["join a.ts", "read a.ts"]);
    expect(model.get("a.ts")).toMatchObject({ kind: "text", shared: true, dirty: false });
    expect(model.get("a.ts")?.note).toBeUndefined();
    expect(model.text("a.ts")).toBe("one\n");

    // Unsaved shared edits (someone else's) show as unsaved in a page that opens the file later.
    server.text("a.ts").insert(0, "// ");
    const later = page();
    await later.open("a.ts");
    expect(later.text("a.ts")).toBe("// one\n");
    expect(later.get("a.ts")?.dirty).toBe(true);
    // They stay in the workspace: leaving the page does not ask.
    expect(later.isDirty()).toBe(false);
  });

  it("keeps a buffer of its own for images, binaries and files over the shared size", async () => {
    const big = "x".repeat(MAX_SHARED_FILE_BYTES + 1);
    const { log, server, page } = setUp({
      "big.txt": big,
      "blob.bin": new Uint8Array([1, 0, 2]),
      "logo.png": new Uint8Array([137, 80, 78, 71]),
    });
    const model = page();
    await model.open("big.txt");
    await model.open("blob.bin");
    await model.open("logo.png");
    expect(model.list().map((b) => [b.path, b.kind, b.shared ?? false])).toEqual([
      ["big.txt", "text", false],
      ["blob.bin", "binary", false],
      ["logo.png", "image", false],
    ]);
    // An image never joins; the others left again.
    expect(log.filter((line) => line.startsWith("join"))).toEqual(["join big.txt", "join blob.bin"]);
    expect(server.joined.every((entry) => entry.destroyed)).toBe(true);
    expect(model.get("big.txt")?.note).toBeUndefined();
  });

  it("falls back to a buffer of its own, with a note, when the shared document cannot be had", async () => {
    const { server, page } = setUp({ "a.ts": "one\n" });
    server.refused.add("a.ts");
    const model = page();
    await model.open("a.ts");
    expect(model.get("a.ts")).toMatchObject({ kind: "text", shared: false, dirty: false });
    expect(model.get("a.ts")?.note).toMatch(/Not shared with others \(.*could not be opened as a shared document/);
    expect(server.joined[0]?.destroyed).toBe(true);
    expect(model.text("a.ts")).toBe("one\n");
  });

  it("takes others' edits into a buffer no view shows, with its dirty mark; edits made there are shared", async () => {
    const { server, page } = setUp({ "a.ts": "let x = 1;\n" });
    const model = page();
    await model.open("a.ts");
    const before = model.state("a.ts");
    server.text("a.ts").insert(0, "// hi\n");
    expect(model.get("a.ts")?.dirty).toBe(true);
    expect(model.text("a.ts")).toBe("// hi\nlet x = 1;\n");
    // The stored state catches up (others' edits are not in this page's undo history).
    expect(model.state("a.ts")?.doc.toString()).toBe("// hi\nlet x = 1;\n");
    expect(undoDepth(model.state("a.ts") as NonNullable<typeof before>)).toBe(0);

    await model.applyEdits("a.ts", [{ from: { line: 2, column: 5 }, to: { line: 2, column: 6 }, insert: "z" }]);
    expect(server.text("a.ts").toString()).toBe("// hi\nlet z = 1;\n");
    // Taken back to the disk's text by others: clean again.
    server.text("a.ts").delete(0, server.text("a.ts").length);
    server.text("a.ts").insert(0, "let x = 1;\n");
    expect(model.get("a.ts")?.dirty).toBe(false);
  });

  it("saves through the shared document; another page's saved state follows the disk", async () => {
    const { log, disk, page } = setUp({ "a.ts": "one\n" });
    const alice = page();
    const bob = page();
    await alice.open("a.ts");
    await bob.open("a.ts");
    await alice.applyEdits("a.ts", [{ from: { line: 1, column: 1 }, to: { line: 1, column: 1 }, insert: "A" }]);
    await bob.applyEdits("a.ts", [{ from: { line: 2, column: 1 }, to: { line: 2, column: 1 }, insert: "B" }]);
    expect(alice.text("a.ts")).toBe("Aone\nB");
    expect(bob.text("a.ts")).toBe("Aone\nB");
    expect([alice.get("a.ts")?.dirty, bob.get("a.ts")?.dirty]).toEqual([true, true]);

    await alice.save("a.ts");
    expect(log).toContain("collab.save a.ts");
    expect(log).not.toContain("files.save a.ts");
    expect(disk.text("a.ts")).toBe("Aone\nB");
    expect(alice.get("a.ts")).toMatchObject({ dirty: false, saving: false, etag: disk.info("a.ts").etag });
    // Bob hears of the change on disk: his buffer (the same text) is saved too.
    changed(bob, "a.ts");
    await expect.poll(() => bob.get("a.ts")?.dirty).toBe(false);
    expect(bob.get("a.ts")?.etag).toBe(disk.info("a.ts").etag);
  });

  it("sends the save before it shows the buffer saving", async () => {
    const { log, page } = setUp({ "a.ts": "one\n" });
    const model = page();
    await model.open("a.ts");
    await model.applyEdits("a.ts", [{ from: { line: 1, column: 1 }, to: { line: 1, column: 1 }, insert: "A" }]);
    // The request is on its way when the page first shows "saving" (its render does not hold the save back).
    const savesWhenShown: number[] = [];
    const stop = model.subscribe(() => {
      if (model.get("a.ts")?.saving) savesWhenShown.push(log.filter((line) => line === "collab.save a.ts").length);
    });
    await model.save("a.ts");
    stop();
    expect(savesWhenShown[0]).toBe(1);
    expect(model.get("a.ts")).toMatchObject({ dirty: false, saving: false });
  });

  it("gets no conflict when the disk changes under unsaved shared edits: the server merges", async () => {
    const { server, page } = setUp({ "n.md": "first\n" });
    const model = page();
    await model.open("n.md");
    await model.applyEdits("n.md", [{ from: { line: 2, column: 1 }, to: { line: 2, column: 1 }, insert: "mine" }]);
    server.diskChange("n.md", "first\nfrom disk\n", "first\nfrom disk\nmine");
    changed(model, "n.md");
    await expect.poll(() => model.get("n.md")?.etag).not.toBe("v0");
    expect(model.get("n.md")?.conflict).toBeUndefined();
    expect(model.text("n.md")).toBe("first\nfrom disk\nmine");
    expect(model.get("n.md")?.dirty).toBe(true);
  });

  it("stays saved when a disk read that began before the save answers after it", async () => {
    const { disk, server, page } = setUp({ "n.md": "first\n" });
    const model = page();
    await model.open("n.md");
    await model.applyEdits("n.md", [{ from: { line: 1, column: 1 }, to: { line: 1, column: 1 }, insert: "mine " }]);
    server.diskChange("n.md", "first\nthird\n", "mine first\nthird\n");
    // The change event's read takes the disk as it is now, and answers only after the save.
    let answer: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const files = disk.files as unknown as { readIfChanged: (path: string, etag: string) => Promise<unknown> };
    const readIfChanged = files.readIfChanged;
    files.readIfChanged = async (path, etag) => {
      const stale = await readIfChanged(path, etag);
      await answered;
      return stale;
    };
    changed(model, "n.md");
    await model.save("n.md");
    expect(model.get("n.md")).toMatchObject({ dirty: false, saving: false });
    answer();
    for (let i = 0; i < 10; i++) await Promise.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(disk.text("n.md")).toBe("mine first\nthird\n");
    expect(model.get("n.md")?.dirty).toBe(false);
  });

  it("still says when a shared buffer's file is deleted", async () => {
    const { disk, page } = setUp({ "n.md": "first\n" });
    const model = page();
    await model.open("n.md");
    await model.applyEdits("n.md", [{ from: { line: 1, column: 1 }, to: { line: 1, column: 1 }, insert: "x" }]);
    disk.remove("n.md");
    changed(model, "n.md");
    await expect.poll(() => model.get("n.md")?.conflict).toEqual({ deleted: true });
    // Closing it asks nothing (there is no `confirm` here): its edits stay in the shared document.
    expect(model.close("n.md")).toBe(true);
  });

  it("moves a renamed file's buffer to one of its own, with the text it had", async () => {
    const { server, page } = setUp({ "src/a.ts": "a\n" });
    const model = page();
    await model.open("src/a.ts");
    server.text("src/a.ts").insert(0, "x");
    model.renamed("src", "lib");
    expect(model.get("lib/a.ts")).toMatchObject({ shared: false, dirty: true });
    expect(model.get("lib/a.ts")?.note).toMatch(/no longer shared/);
    expect(model.text("lib/a.ts")).toBe("xa\n");
    expect(server.joined[0]?.destroyed).toBe(true);
    // Others' edits no longer reach it.
    server.text("src/a.ts").insert(0, "y");
    expect(model.text("lib/a.ts")).toBe("xa\n");
  });
});
