import { describe, expect, it } from "vitest";
import { applyContentChanges, isContentChanges } from "./document-text";

const at = (line: number, character: number) => ({ line, character });

describe("applyContentChanges", () => {
  it("replaces the whole text without a range", () => {
    expect(applyContentChanges("old", [{ text: "new" }])).toBe("new");
  });

  it("applies incremental changes in order, each on the result of the last", () => {
    const text = "const a = 1;\nconst b = 2;\n";
    const result = applyContentChanges(text, [
      { range: { start: at(1, 6), end: at(1, 7) }, text: "bee" },
      { range: { start: at(0, 0), end: at(0, 0) }, text: "// top\n" },
      { range: { start: at(3, 0), end: at(3, 0) }, text: "end" },
    ]);
    expect(result).toBe("// top\nconst a = 1;\nconst bee = 2;\nend");
  });

  it("counts characters in UTF-16 code units and knows every line break", () => {
    const text = "a🙂b\r\nc\rd";
    expect(applyContentChanges(text, [{ range: { start: at(0, 3), end: at(0, 4) }, text: "B" }])).toBe("a🙂B\r\nc\rd");
    expect(applyContentChanges(text, [{ range: { start: at(2, 0), end: at(2, 1) }, text: "D" }])).toBe("a🙂b\r\nc\rD");
    expect(applyContentChanges(text, [{ range: { start: at(0, 4), end: at(1, 0) }, text: " " }])).toBe("a🙂b c\rd");
  });

  it("clamps positions past a line's end or the text's end", () => {
    expect(applyContentChanges("ab\ncd", [{ range: { start: at(0, 99), end: at(0, 99) }, text: "!" }])).toBe("ab!\ncd");
    expect(applyContentChanges("ab", [{ range: { start: at(5, 0), end: at(9, 0) }, text: "?" }])).toBe("ab?");
  });
});

describe("isContentChanges", () => {
  it("accepts well-formed changes only", () => {
    expect(isContentChanges([{ text: "x" }, { text: "", range: { start: at(0, 0), end: at(0, 1) } }])).toBe(true);
    expect(isContentChanges([{ text: 1 }])).toBe(false);
    expect(isContentChanges([{ text: "", range: { start: at(0, 0) } }])).toBe(false);
    expect(isContentChanges("text")).toBe(false);
  });
});
