import { describe, expect, it } from "vitest";
import { mergeDiskChange, textEdits } from "./text-merge";

function apply(text: string, edits: ReturnType<typeof textEdits>): string {
  let out = text;
  for (const edit of [...edits].reverse()) {
    out = out.slice(0, edit.from) + edit.insert + out.slice(edit.from + edit.deleteCount);
  }
  return out;
}

describe("textEdits", () => {
  it("turns one text into the other, touching only what changed", () => {
    const before = "alpha\nbeta\ngamma\n";
    const after = "alpha\nBETA\ngamma\ndelta\n";
    const edits = textEdits(before, after);
    expect(apply(before, edits)).toBe(after);
    expect(edits.every((edit) => edit.from >= "alpha\n".length)).toBe(true);
  });

  it("is empty for equal texts and works from and to nothing", () => {
    expect(textEdits("same", "same")).toEqual([]);
    expect(apply("", textEdits("", "new"))).toBe("new");
    expect(apply("old", textEdits("old", ""))).toBe("");
  });
});

describe("mergeDiskChange", () => {
  it("takes the disk when the shared text has no edits of its own", () => {
    expect(mergeDiskChange("one\n", "one\ntwo\n", "one\n")).toBe("one\ntwo\n");
  });

  it("keeps the shared edits when only they changed", () => {
    expect(mergeDiskChange("one\n", "one\n", "one!\n")).toBe("one!\n");
  });

  it("merges a change on disk with unsaved shared edits elsewhere in the file", () => {
    const base = "first line\nsecond line\nthird line\n";
    const disk = "first line\nsecond line\nthird line, from the terminal\n";
    const current = "first line, typed\nsecond line\nthird line\n";
    expect(mergeDiskChange(base, disk, current)).toBe(
      "first line, typed\nsecond line\nthird line, from the terminal\n",
    );
  });
});
