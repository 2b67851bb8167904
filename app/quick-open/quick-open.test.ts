import { describe, expect, it } from "vitest";
import { highlightRuns, parseQuickOpen } from "./quick-open";

describe("quick open", () => {
  it("reads a file name with an optional line and column", () => {
    expect(parseQuickOpen("main")).toEqual({ file: "main" });
    expect(parseQuickOpen(" src/main.tsx:42 ")).toEqual({ file: "src/main.tsx", line: 42 });
    expect(parseQuickOpen("main.tsx:42:7")).toEqual({ file: "main.tsx", line: 42, column: 7 });
    expect(parseQuickOpen(":12")).toEqual({ file: "", line: 12 });
    expect(parseQuickOpen("a:b")).toEqual({ file: "a:b" });
    expect(parseQuickOpen("x:0")).toEqual({ file: "x" });
  });

  it("splits a path into matched and unmatched runs", () => {
    expect(highlightRuns("src/main.ts", [4, 5, 9])).toEqual([
      { text: "src/", matched: false, start: 0 },
      { text: "ma", matched: true, start: 4 },
      { text: "in.", matched: false, start: 6 },
      { text: "t", matched: true, start: 9 },
      { text: "s", matched: false, start: 10 },
    ]);
    expect(highlightRuns("abc", [])).toEqual([{ text: "abc", matched: false, start: 0 }]);
  });
});
