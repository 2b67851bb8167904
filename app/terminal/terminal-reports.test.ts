import { describe, expect, it } from "vitest";
import { isOnlyReports } from "./terminal-reports";

describe("isOnlyReports", () => {
  it("takes focus and mouse reports, alone or several in one chunk", () => {
    expect(isOnlyReports("\x1b[O")).toBe(true);
    expect(isOnlyReports("\x1b[I")).toBe(true);
    expect(isOnlyReports("\x1b[<0;12;5M\x1b[<0;12;5m")).toBe(true);
    expect(isOnlyReports("\x1b[<65;3;40M")).toBe(true);
    expect(isOnlyReports("\x1b[32;1;1M\x1b[O")).toBe(true);
  });

  it("leaves anything typed: keys, arrows, Enter, Escape, a paste that holds a report", () => {
    for (const typed of [
      "a",
      "\r",
      "\x1b",
      "\x1b[A",
      "\x1b[1;5C",
      "\x03",
      "ls\r",
      "\x1b[Ox",
      "x\x1b[I",
      "\x1b[<0;1M",
      "",
    ]) {
      expect(isOnlyReports(typed), JSON.stringify(typed)).toBe(false);
    }
  });
});
