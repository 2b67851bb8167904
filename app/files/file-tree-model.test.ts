import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { FileEntry } from "../../protocol/files";
import type { FilesApi } from "../api/files";
import { FileTreeModel, flatten } from "./file-tree-model";

const entry = (name: string, type: FileEntry["type"] = "file"): FileEntry => ({ name, type, size: 1, modifiedAt: 0 });

/** Folders in memory, listed as the files API lists them (a fake for this unit test only). */
function memoryTree(dirs: Record<string, FileEntry[]>) {
  const moves: [string, string][] = [];
  const files = {
    list: async (path: string) => {
      const entries = dirs[path];
      if (!entries) throw new Error(`${path} does not exist.`);
      return { entries };
    },
    move: async (from: string, to: string) => {
      moves.push([from, to]);
      return {};
    },
  };
  return { files: files as unknown as FilesApi, dirs, moves };
}

describe("the file tree model", () => {
  beforeEach(() => {
    const store = new Map<string, string>();
    vi.stubGlobal("localStorage", {
      getItem: (key: string) => store.get(key) ?? null,
      setItem: (key: string, value: string) => store.set(key, value),
    });
  });
  afterEach(() => vi.unstubAllGlobals());

  it("lists folders first in natural order, hides dot files unless asked", () => {
    const folders = new Map([
      [".", { entries: [entry("b10"), entry("b9"), entry("src", "directory"), entry(".env")] }],
    ]);
    const names = (showHidden: boolean) => flatten(folders, new Set(["."]), showHidden, undefined).map((r) => r.name);
    expect(names(false)).toEqual(["src", "b9", "b10"]);
    expect(names(true)).toEqual(["src", ".env", "b9", "b10"]);
  });

  it("opens a folder when revealing a file in it, and follows live changes", async () => {
    const { files, dirs } = memoryTree({ ".": [entry("src", "directory")], src: [entry("a.ts")] });
    const editor = { open: vi.fn(), renamed: vi.fn(), deleted: vi.fn() };
    const model = new FileTreeModel(files, editor);
    await model.load(".");
    model.reveal("src/a.ts");
    await vi.waitFor(() => expect(model.getSnapshot().rows.map((r) => r.path)).toEqual(["src", "src/a.ts"]));
    expect(model.getSnapshot().selected).toBe("src/a.ts");

    dirs.src = [entry("a.ts"), entry("b.ts")];
    model.onFileEvent({ kind: "changes", changes: [{ type: "created", path: "src/b.ts" }] });
    await vi.waitFor(() => expect(model.getSnapshot().rows.map((r) => r.path)).toContain("src/b.ts"));

    const row = model.getSnapshot().rows.find((r) => r.path === "src/b.ts");
    if (row) model.activate(row);
    expect(editor.open).toHaveBeenCalledWith("src/b.ts");
  });

  it("shows a change at once, before the folder's listing answers, and then what the listing says", async () => {
    const { files, dirs } = memoryTree({ ".": [entry("a.ts")] });
    const model = new FileTreeModel(files, { open: vi.fn(), renamed: vi.fn(), deleted: vi.fn() });
    await model.load(".");
    let answer: () => void = () => {};
    const listed = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const list = files.list.bind(files);
    files.list = async (path, options) => {
      await listed;
      return list(path, options);
    };
    dirs["."] = [entry("a.ts"), entry("made.txt"), entry("lib", "directory")];
    model.onFileEvent({
      kind: "changes",
      changes: [
        { type: "created", path: "made.txt" },
        { type: "created", path: "lib", directory: true },
        { type: "deleted", path: "gone.txt" },
      ],
    });
    const rows = () => model.getSnapshot().rows.map((r) => `${r.path}:${r.type}:${r.size}`);
    expect(rows()).toEqual(["lib:directory:0", "a.ts:file:1", "made.txt:file:0"]);
    model.onFileEvent({ kind: "changes", changes: [{ type: "moved", from: "a.ts", path: "b.ts" }] });
    expect(rows()).toEqual(["lib:directory:0", "b.ts:file:0", "made.txt:file:0"]);
    dirs["."] = [entry("b.ts"), entry("made.txt"), entry("lib", "directory")];
    answer();
    await vi.waitFor(() => expect(rows()).toEqual(["lib:directory:1", "b.ts:file:1", "made.txt:file:1"]));
  });

  it("lists no folder again for a change to the content of an entry it lists; other changes it does", async () => {
    const { files, dirs } = memoryTree({ ".": [entry("a.ts"), entry("src", "directory")], src: [entry("b.ts")] });
    const model = new FileTreeModel(files, { open: vi.fn(), renamed: vi.fn(), deleted: vi.fn() });
    await model.load(".");
    await model.load("src");
    const listed: string[] = [];
    const list = files.list.bind(files);
    files.list = async (path, options) => {
      listed.push(path);
      return list(path, options);
    };
    model.onFileEvent({
      kind: "changes",
      changes: [
        { type: "modified", path: "a.ts", directory: false },
        { type: "modified", path: "src", directory: true },
        { type: "modified", path: "src/b.ts", directory: false },
      ],
    });
    expect(listed).toEqual([]);
    // Not listed there, or listed as another kind (a file that became a folder): the folder is listed again.
    dirs["."] = [entry("a.ts", "directory"), entry("src", "directory"), entry("new.ts")];
    model.onFileEvent({ kind: "changes", changes: [{ type: "modified", path: "a.ts", directory: true }] });
    model.onFileEvent({ kind: "changes", changes: [{ type: "modified", path: "src/c.ts", directory: false }] });
    model.onFileEvent({ kind: "changes", changes: [{ type: "modified", path: "new.ts" }] });
    expect(listed).toEqual([".", "src", "."]);
    await vi.waitFor(() =>
      expect(model.getSnapshot().rows.map((r) => `${r.path}:${r.type}`)).toContain("a.ts:directory"),
    );
  });

  it("shows the latest listing of a folder when two listings cross on the wire", async () => {
    const { files } = memoryTree({ ".": [entry("a.ts")] });
    const model = new FileTreeModel(files, { open: vi.fn(), renamed: vi.fn(), deleted: vi.fn() });
    await model.load(".");
    const answers: ((entries: FileEntry[]) => void)[] = [];
    files.list = () => new Promise((resolve) => answers.push((entries) => resolve({ entries }) as never));
    model.onFileEvent({ kind: "changes", changes: [{ type: "created", path: "one.txt" }] });
    model.onFileEvent({ kind: "changes", changes: [{ type: "created", path: "two.txt" }] });
    expect(answers).toHaveLength(2);
    const rows = () => model.getSnapshot().rows.map((r) => r.path);
    // The newer listing answers first; the older one, answering last, must not take two.txt back.
    answers[1]?.([entry("a.ts"), entry("one.txt"), entry("two.txt")]);
    await vi.waitFor(() => expect(rows()).toEqual(["a.ts", "one.txt", "two.txt"]));
    answers[0]?.([entry("a.ts"), entry("one.txt")]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(rows()).toEqual(["a.ts", "one.txt", "two.txt"]);
  });

  it("renames in place and tells the editor; refuses a name with a slash", async () => {
    const { files, moves } = memoryTree({ ".": [entry("a.ts")] });
    const editor = { open: vi.fn(), renamed: vi.fn(), deleted: vi.fn() };
    const model = new FileTreeModel(files, editor);
    await model.load(".");
    model.startRename("a.ts");
    await model.commitEdit("b.ts");
    expect(moves).toEqual([["a.ts", "b.ts"]]);
    expect(editor.renamed).toHaveBeenCalledWith("a.ts", "b.ts");
    model.startRename("b.ts");
    await expect(model.commitEdit("x/y")).rejects.toThrow(/cannot contain/);
    expect(model.getSnapshot().editing).toBeUndefined();
  });
});
