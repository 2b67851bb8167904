import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { FileIndex } from "../../protocol/search";
import { FileIndexModel } from "./file-index-model";

function indexOf(files: string[]) {
  const fileIndex = vi.fn(async (): Promise<FileIndex> => ({ files: [...files] }));
  return { model: new FileIndexModel({ fileIndex }), fileIndex };
}

const paths = (model: FileIndexModel, query = "", limit = 100) => model.find(query, limit).map((m) => m.path);

describe("the file index", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("is read once, then filtered fuzzily in the page, best match first", async () => {
    const { model, fileIndex } = indexOf(["src/main.tsx", "src/App.tsx", "README.md", "src/deep/maintenance.ts"]);
    await model.ensureLoaded();
    await model.ensureLoaded();
    expect(fileIndex).toHaveBeenCalledOnce();
    expect(model.getSnapshot()).toMatchObject({ state: "ready", count: 4 });
    expect(paths(model, "mtsx")[0]).toBe("src/main.tsx");
    expect(paths(model, "dpmaint")).toEqual(["src/deep/maintenance.ts"]);
    expect(paths(model, "main")[0]).toBe("src/main.tsx");
    const [first] = model.find("app");
    expect(first).toEqual({ path: "src/App.tsx", indexes: [4, 5, 6] });
    // An empty query lists shallow files first.
    expect(paths(model)).toEqual(["README.md", "src/App.tsx", "src/main.tsx", "src/deep/maintenance.ts"]);
  });

  it("follows the file watcher at once: new, deleted and moved files and folders", async () => {
    const { model } = indexOf(["a/one.ts", "a/two.ts", "b.ts"]);
    await model.ensureLoaded();
    model.onFileEvent({
      kind: "changes",
      changes: [
        { type: "created", path: "c.ts" },
        { type: "modified", path: "b.ts" },
        { type: "deleted", path: "b.ts" },
        { type: "moved", from: "a", path: "z", directory: true },
      ],
    });
    expect(paths(model).sort()).toEqual(["c.ts", "z/one.ts", "z/two.ts"]);
    model.onFileEvent({ kind: "changes", changes: [{ type: "moved", from: "c.ts", path: "d.ts" }] });
    model.onFileEvent({ kind: "changes", changes: [{ type: "deleted", path: "z", directory: true }] });
    expect(paths(model)).toEqual(["d.ts"]);
  });

  it("reads the index again after a new folder or lost events, keeping changes made meanwhile", async () => {
    const files = ["a.ts"];
    const fileIndex = vi.fn(async (): Promise<FileIndex> => ({ files: [...files] }));
    const model = new FileIndexModel({ fileIndex });
    await model.ensureLoaded();
    files.push("dist/ignored-by-nobody.js");
    model.onFileEvent({ kind: "changes", changes: [{ type: "created", path: "dist", directory: true }] });
    // A new file that .gitignore ignores shows at once, and goes when the index is read again.
    model.onFileEvent({ kind: "changes", changes: [{ type: "created", path: "debug.log" }] });
    expect(paths(model)).toContain("debug.log");
    expect(fileIndex).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(fileIndex).toHaveBeenCalledTimes(2);
    expect(paths(model).sort()).toEqual(["a.ts", "dist/ignored-by-nobody.js"]);
    model.onFileEvent({ kind: "resync" });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(fileIndex).toHaveBeenCalledTimes(3);
    // A changed .gitignore changes which files belong: read again.
    files.splice(files.indexOf("dist/ignored-by-nobody.js"), 1);
    model.onFileEvent({ kind: "changes", changes: [{ type: "modified", path: "sub/.gitignore" }] });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(fileIndex).toHaveBeenCalledTimes(4);
    expect(paths(model)).toEqual(["a.ts"]);
  });

  it("ignores events before it is first needed, and reports a failed read", async () => {
    const fileIndex = vi.fn(async (): Promise<FileIndex> => {
      throw new Error("asleep");
    });
    const model = new FileIndexModel({ fileIndex });
    model.onFileEvent({ kind: "changes", changes: [{ type: "created", path: "x.ts" }] });
    expect(model.getSnapshot().count).toBe(0);
    await model.ensureLoaded();
    expect(model.getSnapshot()).toMatchObject({ state: "error", error: "asleep" });
  });
});
