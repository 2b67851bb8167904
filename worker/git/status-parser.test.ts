import { describe, expect, it } from "vitest";
import { parseStatus } from "./status-parser";

// Records as git 2.47 prints them (`git status --porcelain=v2 --branch -z`).
const HASH = "5e2deff43b34d6e60ddfc91ecf5b67241ae2f08b";
const record = (...parts: string[]) => parts.join(" ");

describe("parseStatus", () => {
  it("groups staged, changed, untracked and renamed files, paths with spaces kept whole", () => {
    const output = [
      `# branch.oid ${HASH}`,
      "# branch.head main",
      "# branch.upstream origin/main",
      "# branch.ab +2 -1",
      record("1", "MM", "N...", "100644", "100644", "100644", HASH, HASH, "a b.txt"),
      record("1", ".D", "N...", "100644", "100644", "000000", HASH, HASH, "del"),
      record("2", "R.", "N...", "100644", "100644", "100644", HASH, HASH, "R100", "new"),
      "old",
      "? un tracked",
      "",
    ].join("\0");
    const status = parseStatus(output, 100);
    expect(status.branch).toEqual({ head: "main", oid: HASH, upstream: "origin/main", ahead: 2, behind: 1 });
    expect(status.staged).toEqual([
      { path: "a b.txt", code: "M" },
      { path: "new", code: "R", from: "old" },
    ]);
    expect(status.changed).toEqual([
      { path: "a b.txt", code: "M" },
      { path: "del", code: "D" },
    ]);
    expect(status.untracked).toEqual([{ path: "un tracked", code: "?" }]);
    expect(status.conflicted).toEqual([]);
    expect(status.total).toBe(4);
    expect(status.truncated).toBe(false);
  });

  it("reads a new repository and a detached HEAD", () => {
    expect(parseStatus("# branch.oid (initial)\0# branch.head master\0", 10).branch).toEqual({
      head: "master",
      oid: null,
    });
    expect(parseStatus(`# branch.oid ${HASH}\0# branch.head (detached)\0`, 10).branch).toEqual({
      head: null,
      oid: HASH,
    });
  });

  it("lists conflicts apart", () => {
    const output = `${record("u", "UU", "N...", "100644", "100644", "100644", "100644", HASH, HASH, HASH, "src/x y.ts")}\0`;
    const status = parseStatus(output, 10);
    expect(status.conflicted).toEqual([{ path: "src/x y.ts", code: "U" }]);
    expect(status.staged).toEqual([]);
  });

  it("stops listing at the limit and says how many there are", () => {
    const output = Array.from({ length: 25 }, (_, i) => `? f${i}`).join("\0");
    const status = parseStatus(output, 10);
    expect(status.untracked).toHaveLength(10);
    expect(status.total).toBe(25);
    expect(status.truncated).toBe(true);
  });
});
