import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import { AgentChanges, MAX_BEFORE_CHARS, MAX_KEPT } from "./agent-changes";
import type { WorkspaceFiles } from "./file-tools";

/** The two methods AgentChanges uses, over a map of path -> text (a missing path is FILE_NOT_FOUND). */
function filesOf(texts: Record<string, string>): WorkspaceFiles {
  return {
    checkPath: (path: string) => {
      if (path.includes("..")) throw new AppError(ErrorCode.INVALID_PATH, "no");
      return path;
    },
    shared: <T>(operation: () => Promise<T>) => operation(),
    readText: async (path: string) => {
      const text = texts[path];
      if (text === undefined) throw new AppError(ErrorCode.FILE_NOT_FOUND, path);
      return { text, stat: {} };
    },
  } as unknown as WorkspaceFiles;
}

describe("the agent's file changes", () => {
  it("keeps the text before a write that ran, nothing for a failed one, other tools or a refused path", async () => {
    const changes = new AgentChanges();
    const files = filesOf({ "a.txt": "old" });
    await changes.before("u1", "edit_file", "c1", { path: "a.txt" }, files);
    changes.ran("c1", true);
    expect(changes.get("u1", "c1")).toEqual({ toolCallId: "c1", path: "a.txt", before: "old", created: false });
    await changes.before("u1", "write_file", "c2", { path: "new.txt" }, files);
    changes.ran("c2", true);
    expect(changes.get("u1", "c2")).toMatchObject({ before: "", created: true });
    await changes.before("u1", "edit_file", "c3", { path: "a.txt" }, files);
    changes.ran("c3", false);
    await changes.before("u1", "run_command", "c4", { path: "a.txt" }, files);
    changes.ran("c4", true);
    await changes.before("u1", "write_file", "c5", { path: "../etc/passwd" }, files);
    changes.ran("c5", true);
    for (const id of ["c3", "c4", "c5"]) expect(() => changes.get("u1", id)).toThrow(/No change/);
    // Another person's call is not theirs to see.
    expect(() => changes.get("u2", "c1")).toThrow(/No change/);
  });

  it("keeps a person's last MAX_KEPT, and no diff of a file too long to show", async () => {
    const changes = new AgentChanges();
    const files = filesOf({ "a.txt": "old", "big.txt": "x".repeat(MAX_BEFORE_CHARS + 1) });
    for (let i = 0; i <= MAX_KEPT; i++) {
      await changes.before("u1", "edit_file", `c${i}`, { path: "a.txt" }, files);
      changes.ran(`c${i}`, true);
    }
    await changes.before("u2", "edit_file", "theirs", { path: "a.txt" }, files);
    changes.ran("theirs", true);
    expect(() => changes.get("u1", "c0")).toThrow(/No change/);
    expect(changes.get("u1", "c1").before).toBe("old");
    expect(changes.get("u1", `c${MAX_KEPT}`).before).toBe("old");
    expect(changes.get("u2", "theirs").before).toBe("old");
    await changes.before("u1", "edit_file", "big", { path: "big.txt" }, files);
    changes.ran("big", true);
    expect(() => changes.get("u1", "big")).toThrow(/No change/);
    changes.clear("u1");
    expect(() => changes.get("u1", "c1")).toThrow(/No change/);
    expect(changes.get("u2", "theirs").before).toBe("old");
  });
});
