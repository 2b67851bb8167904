import { describe, expect, it } from "vitest";
import { ProblemsModel } from "./problems-model";

const diagnostic = (line: number, message: string, severity = 1) => ({
  range: { start: { line, character: 4 } },
  severity,
  message,
});

describe("ProblemsModel", () => {
  it("lists each file's latest diagnostics by file and line, counting errors and warnings", () => {
    const model = new ProblemsModel();
    model.publish("typescript", "file:///workspace/src/b.ts", [diagnostic(9, "late"), diagnostic(1, "early", 2)]);
    model.publish("typescript", "file:///workspace/src/a%20b.ts", [diagnostic(0, "first")]);
    model.publish("typescript", "file:///workspace/src/c.ts", [diagnostic(0, "unused", 4)]);
    const { problems, errors, warnings } = model.getSnapshot();
    expect(problems.map((p) => `${p.path}:${p.line}:${p.column} ${p.message}`)).toEqual([
      "src/a b.ts:1:5 first",
      "src/b.ts:2:5 early",
      "src/b.ts:10:5 late",
    ]);
    expect([errors, warnings]).toEqual([2, 1]);
  });

  it("replaces a file's list with each publish and forgets a restarted server's", () => {
    const model = new ProblemsModel();
    model.publish("typescript", "file:///workspace/a.ts", [diagnostic(0, "old")]);
    model.publish("python", "file:///workspace/a.py", [diagnostic(0, "py")]);
    model.publish("typescript", "file:///workspace/a.ts", []);
    expect(model.getSnapshot().problems.map((p) => p.message)).toEqual(["py"]);
    model.publish("typescript", "file:///workspace/a.ts", [diagnostic(0, "again")]);
    model.clearServer("typescript");
    expect(model.getSnapshot().problems.map((p) => p.message)).toEqual(["py"]);
  });

  it("ignores files outside the workspace", () => {
    const model = new ProblemsModel();
    model.publish("python", "file:///usr/lib/python3/os.py", [diagnostic(0, "x")]);
    expect(model.getSnapshot().problems).toEqual([]);
  });
});
