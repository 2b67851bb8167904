import { describe, expect, it } from "vitest";
import { ChangeParser, coalesce, isTemporaryName } from "../../worker/files/change-batcher";

const parse = (lines: string[]) => {
  const parser = new ChangeParser("/workspace");
  return [...lines.flatMap((l) => parser.push(l)), ...parser.flush()];
};

describe("ChangeParser", () => {
  it("turns inotifywait lines into workspace-relative changes", () => {
    expect(parse(["CREATE\t/workspace/a.txt", "MODIFY\t/workspace/a.txt", "DELETE\t/workspace/src/b.ts"])).toEqual([
      { type: "created", path: "a.txt", directory: false },
      { type: "modified", path: "a.txt", directory: false },
      { type: "deleted", path: "src/b.ts", directory: false },
    ]);
    expect(parse(["CREATE,ISDIR\t/workspace/dir"])).toEqual([{ type: "created", path: "dir", directory: true }]);
  });

  it("pairs MOVED_FROM with MOVED_TO; lone halves are deletes and creates", () => {
    expect(parse(["MOVED_FROM\t/workspace/a", "MOVED_TO\t/workspace/b/a"])).toEqual([
      { type: "moved", path: "b/a", from: "a", directory: false },
    ]);
    expect(parse(["MOVED_FROM\t/workspace/a", "CREATE\t/workspace/c"])).toEqual([
      { type: "deleted", path: "a", directory: false },
      { type: "created", path: "c", directory: false },
    ]);
    expect(parse(["MOVED_TO\t/workspace/in"])).toEqual([{ type: "created", path: "in", directory: false }]);
  });

  it("reports an atomic save (temporary file renamed into place) as a modification", () => {
    expect(
      parse([
        "CREATE\t/workspace/src/.x.ts.save-abc123",
        "MODIFY\t/workspace/src/.x.ts.save-abc123",
        "MOVED_FROM\t/workspace/src/.x.ts.save-abc123",
        "MOVED_TO\t/workspace/src/x.ts",
      ]),
    ).toEqual([{ type: "modified", path: "src/x.ts", directory: false }]);
    expect(isTemporaryName("dir/.big.bin.upload-0f3a")).toBe(true);
    expect(isTemporaryName("dir/big.bin")).toBe(false);
  });
});

describe("coalesce", () => {
  it("keeps the most telling change per path", () => {
    expect(
      coalesce([
        { type: "created", path: "a" },
        { type: "modified", path: "a" },
        { type: "created", path: "b" },
        { type: "deleted", path: "b" },
        { type: "modified", path: "c" },
        { type: "modified", path: "c" },
      ]),
    ).toEqual([
      { type: "created", path: "a" },
      { type: "modified", path: "c" },
    ]);
  });
});
