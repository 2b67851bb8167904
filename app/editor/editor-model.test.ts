import { undoDepth } from "@codemirror/commands";
import { describe, expect, it } from "vitest";
import { EditorModel } from "./editor-model";
import { memoryFiles } from "./memory-files.fixture";

describe("the editor model", () => {
  it("opens a file at a line and column, and lists open buffers", async () => {
    const { files } = memoryFiles({ "a.ts": "one\ntwo\nthree\n", "b.md": "# b\n" });
    const model = new EditorModel(files);
    const seen: string[] = [];
    model.subscribe(() => seen.push(model.getSnapshot().active ?? "-"));
    await model.open("a.ts", { line: 2, column: 3 });
    await model.open("b.md");
    expect(model.list().map((b) => [b.path, b.kind])).toEqual([
      ["a.ts", "text"],
      ["b.md", "text"],
    ]);
    expect(model.getSnapshot().active).toBe("b.md");
    expect(model.state("a.ts")?.selection.main.head).toBe("one\ntw".length);
    expect(seen).toContain("a.ts");
  });

  it("applies edits (marking the buffer dirty), saves with If-Match and is clean again", async () => {
    const { files, text } = memoryFiles({ "a.ts": "let x = 1;\nlet y = x;\n" });
    const model = new EditorModel(files);
    await model.applyEdits("a.ts", [
      { from: { line: 1, column: 5 }, to: { line: 1, column: 6 }, insert: "z" },
      { from: { line: 2, column: 9 }, to: { line: 2, column: 10 }, insert: "z" },
    ]);
    expect(model.text("a.ts")).toBe("let z = 1;\nlet y = z;\n");
    expect(model.get("a.ts")?.dirty).toBe(true);
    // Opened in the background: nothing was active, nothing is.
    expect(model.getSnapshot().active).toBeUndefined();
    // The request is on its way when the page first shows "saving" (its render does not hold the save back).
    const onDiskWhenShown: (string | undefined)[] = [];
    const stop = model.subscribe(() => {
      if (model.get("a.ts")?.saving) onDiskWhenShown.push(text("a.ts"));
    });
    await model.save("a.ts");
    stop();
    expect(onDiskWhenShown[0]).toBe("let z = 1;\nlet y = z;\n");
    expect(text("a.ts")).toBe("let z = 1;\nlet y = z;\n");
    expect(model.get("a.ts")?.dirty).toBe(false);
  });

  it("reloads a clean buffer from disk and keeps its undo history", async () => {
    const { files, write } = memoryFiles({ "n.md": "first\n" });
    const model = new EditorModel(files);
    await model.open("n.md");
    write("n.md", "second\n");
    await model.reload("n.md");
    expect(model.text("n.md")).toBe("second\n");
    expect(undoDepth(model.state("n.md") as NonNullable<ReturnType<typeof model.state>>)).toBe(1);
    expect(model.get("n.md")?.dirty).toBe(false);
    expect(model.get("n.md")?.conflict).toBeUndefined();
  });

  it("after its own save, a change event reads no bytes (the disk is the version saved); a change made elsewhere does", async () => {
    const { files, write, reads } = memoryFiles({ "n.md": "first\n" });
    const model = new EditorModel(files);
    await model.open("n.md");
    await model.applyEdits("n.md", [{ from: { line: 1, column: 1 }, to: { line: 1, column: 1 }, insert: "my " }]);
    await model.save("n.md");
    reads.length = 0;
    const changed = () => model.onFileEvent({ kind: "changes", changes: [{ path: "n.md", type: "modified" }] });
    changed();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(reads).toEqual([]);
    write("n.md", "from the terminal\n");
    changed();
    await expect.poll(() => model.text("n.md")).toBe("from the terminal\n");
    expect(reads).toEqual(["n.md"]);
  });

  it("puts a conflict on a dirty buffer whose file changed, and a refused save does not overwrite", async () => {
    const { files, text, write } = memoryFiles({ "n.md": "first\n" });
    const model = new EditorModel(files);
    await model.open("n.md");
    await model.applyEdits("n.md", [{ from: { line: 2, column: 1 }, to: { line: 2, column: 1 }, insert: "mine" }]);
    write("n.md", "from the terminal\n");
    await model.save("n.md");
    expect(text("n.md")).toBe("from the terminal\n");
    expect(model.get("n.md")?.conflict).toEqual({ disk: "from the terminal\n", etag: expect.any(String) });

    model.resolveConflict("n.md", "mine");
    await model.save("n.md");
    expect(text("n.md")).toBe("first\nmine");
    expect(model.get("n.md")?.dirty).toBe(false);
  });

  it("follows renames and deletions from the tree", async () => {
    const { files } = memoryFiles({ "src/a.ts": "a\n", "src/b.ts": "b\n" });
    const model = new EditorModel(files);
    await model.open("src/a.ts");
    await model.open("src/b.ts");
    await model.applyEdits("src/b.ts", [{ from: { line: 1, column: 1 }, to: { line: 1, column: 1 }, insert: "x" }]);
    model.renamed("src", "lib");
    expect(model.list().map((b) => b.path)).toEqual(["lib/a.ts", "lib/b.ts"]);
    expect(model.getSnapshot().active).toBe("lib/b.ts");
    expect(model.text("lib/b.ts")).toBe("xb\n");

    model.deleted("lib");
    // The clean buffer closes; the dirty one stays, saying its file is gone.
    expect(model.list().map((b) => [b.path, b.conflict])).toEqual([["lib/b.ts", { deleted: true }]]);
  });

  it("gives extensions added later to open buffers without losing their text", async () => {
    const { files } = memoryFiles({ "a.ts": "a\n" });
    const model = new EditorModel(files);
    await model.open("a.ts");
    const paths: string[] = [];
    const remove = model.addExtensions((path) => {
      paths.push(path);
      return [];
    });
    await model.open("b.ts").catch(() => undefined);
    expect(paths).toEqual(["a.ts"]);
    expect(model.get("b.ts")?.kind).toBe("error");
    expect(model.text("a.ts")).toBe("a\n");
    remove();
  });
});
