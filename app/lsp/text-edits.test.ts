import { describe, expect, it } from "vitest";
import { applyTextEdits } from "./text-edits";

const edit = (line: number, from: number, to: number, newText: string, endLine = line) => ({
  range: { start: { line, character: from }, end: { line: endLine, character: to } },
  newText,
});

describe("applyTextEdits", () => {
  it("applies every edit against the original text, in any order", () => {
    const text = "function greet() {}\ngreet();\ngreet();\n";
    const edits = [edit(2, 0, 5, "hello"), edit(0, 9, 14, "hello"), edit(1, 0, 5, "hello")];
    expect(applyTextEdits(text, edits)).toBe("function hello() {}\nhello();\nhello();\n");
  });

  it("inserts, deletes across lines and keeps CRLF line ends", () => {
    const text = "a\r\nb\r\nc";
    expect(applyTextEdits(text, [edit(0, 1, 0, "", 1)])).toBe("ab\r\nc");
    expect(applyTextEdits(text, [edit(0, 9, 9, "!")])).toBe("a!\r\nb\r\nc");
    expect(applyTextEdits(text, [edit(5, 0, 0, "end")])).toBe("a\r\nb\r\ncend");
  });
});
