import { describe, expect, it } from "vitest";
import { isShellCommand, isTerminalName, parseClientMessage } from "../../protocol/terminal";

describe("terminal names", () => {
  it("accepts tmux-safe lowercase names and refuses the rest", () => {
    for (const good of ["main", "term-2", "0", "a".repeat(63)]) expect(isTerminalName(good), good).toBe(true);
    for (const bad of ["", "Main", "-x", "a.b", "a:b", "a b", "a/b", "a".repeat(64), "é"]) {
      expect(isTerminalName(bad), bad).toBe(false);
    }
  });
});

describe("client text frames", () => {
  it("reads resize messages, with or without a type, clamped to sane sizes", () => {
    expect(parseClientMessage('{"type":"resize","cols":100,"rows":30}')).toEqual({
      type: "resize",
      cols: 100,
      rows: 30,
    });
    expect(parseClientMessage('{"cols":80,"rows":24}')).toEqual({ type: "resize", cols: 80, rows: 24 });
    expect(parseClientMessage('{"type":"resize","cols":100000,"rows":100000}')).toEqual({
      type: "resize",
      cols: 500,
      rows: 200,
    });
  });

  it("reads ack and ping", () => {
    expect(parseClientMessage('{"type":"ack","bytes":65536}')).toEqual({ type: "ack", bytes: 65536 });
    expect(parseClientMessage('{"type":"ping"}')).toEqual({ type: "ping" });
  });

  it("turns anything malformed into undefined", () => {
    for (const bad of [
      "",
      "not json",
      "null",
      "[1,2]",
      "{}",
      '{"type":"resize","cols":0,"rows":24}',
      '{"type":"resize","cols":"wide","rows":24}',
      '{"type":"resize","cols":80}',
      '{"type":"ack","bytes":-1}',
      '{"type":"ack","bytes":1.5}',
      '{"type":"exit","code":0}',
    ]) {
      expect(parseClientMessage(bad), bad).toBeUndefined();
    }
  });
});

describe("busy terminals", () => {
  it("counts a shell as idle and anything else as busy", () => {
    expect(isShellCommand("bash")).toBe(true);
    expect(isShellCommand("-bash")).toBe(true);
    expect(isShellCommand("sleep")).toBe(false);
    expect(isShellCommand("vim")).toBe(false);
  });
});
