import { describe, expect, it } from "vitest";
import { MAX_BEFORE_CHARS } from "../../protocol/agent-chat";
import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import type { WorkspaceFiles } from "../files/workspace-files";
import { AgentChanges, type ChangeStorage, MAX_KEPT } from "./agent-changes";

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

/** A Durable Object's storage as far as AgentChanges uses it: values copied in and out. */
function storageOf(map = new Map<string, unknown>()): ChangeStorage & { map: Map<string, unknown> } {
  return {
    map,
    get: async <T>(key: string) => structuredClone(map.get(key)) as T | undefined,
    put: async (entries) => {
      for (const [key, value] of Object.entries(entries)) map.set(key, structuredClone(value));
    },
    delete: async (keys) => keys.filter((key) => map.delete(key)).length,
  };
}

describe("the agent's file changes", () => {
  it("keeps the text before a write that ran, nothing for a failed one, other tools or a refused path", async () => {
    const changes = new AgentChanges(storageOf());
    const files = filesOf({ "a.txt": "old" });
    await changes.before("u1", "edit_file", "c1", { path: "a.txt" }, files);
    await changes.ran("u1", "c1", true);
    expect(await changes.get("u1", "c1")).toEqual({ toolCallId: "c1", path: "a.txt", before: "old", created: false });
    await changes.before("u1", "write_file", "c2", { path: "new.txt" }, files);
    await changes.ran("u1", "c2", true);
    expect(await changes.get("u1", "c2")).toMatchObject({ before: "", created: true });
    await changes.before("u1", "edit_file", "c3", { path: "a.txt" }, files);
    await changes.ran("u1", "c3", false);
    await changes.before("u1", "run_command", "c4", { path: "a.txt" }, files);
    await changes.ran("u1", "c4", true);
    await changes.before("u1", "write_file", "c5", { path: "../etc/passwd" }, files);
    await changes.ran("u1", "c5", true);
    for (const id of ["c3", "c4", "c5"]) await expect(changes.get("u1", id)).rejects.toThrow(/No change/);
    // Another person's call is not theirs to see.
    await expect(changes.get("u2", "c1")).rejects.toThrow(/No change/);
  });

  it("keeps a person's last MAX_KEPT, and no diff of a file too long to show", async () => {
    const storage = storageOf();
    const changes = new AgentChanges(storage);
    const files = filesOf({ "a.txt": "old", "big.txt": "x".repeat(MAX_BEFORE_CHARS + 1) });
    for (let i = 0; i <= MAX_KEPT; i++) {
      await changes.before("u1", "edit_file", `c${i}`, { path: "a.txt" }, files);
      await changes.ran("u1", `c${i}`, true);
    }
    await changes.before("u2", "edit_file", "theirs", { path: "a.txt" }, files);
    await changes.ran("u2", "theirs", true);
    await expect(changes.get("u1", "c0")).rejects.toThrow(/No change/);
    expect((await changes.get("u1", "c1")).before).toBe("old");
    expect((await changes.get("u1", `c${MAX_KEPT}`)).before).toBe("old");
    expect((await changes.get("u2", "theirs")).before).toBe("old");
    await changes.before("u1", "edit_file", "big", { path: "big.txt" }, files);
    await changes.ran("u1", "big", true);
    await expect(changes.get("u1", "big")).rejects.toThrow(/No change/);
    // What was dropped is gone from storage, not only from the list: MAX_KEPT changes and two lists.
    expect(storage.map.size).toBe(MAX_KEPT + 1 + 2);
    await changes.clear("u1");
    await expect(changes.get("u1", "c1")).rejects.toThrow(/No change/);
    expect((await changes.get("u2", "theirs")).before).toBe("old");
    expect([...storage.map.keys()].filter((key) => key.includes("u1"))).toEqual([]);
  });

  it("keeps them across a restart of the Durable Object: a new AgentChanges over the same storage", async () => {
    const map = new Map<string, unknown>();
    const first = new AgentChanges(storageOf(map));
    await first.before("u1", "edit_file", "c1", { path: "a.txt" }, filesOf({ "a.txt": "before the agent" }));
    await first.ran("u1", "c1", true);
    const restarted = new AgentChanges(storageOf(map));
    expect((await restarted.get("u1", "c1")).before).toBe("before the agent");
  });

  it("keeps every change of calls that end together, and the same call id of two people apart", async () => {
    const storage = storageOf();
    const changes = new AgentChanges(storage);
    const files = filesOf({ "a.txt": "a", "b.txt": "b" });
    await changes.before("u1", "edit_file", "c1", { path: "a.txt" }, files);
    await changes.before("u1", "edit_file", "c2", { path: "b.txt" }, files);
    await changes.before("u2", "edit_file", "c1", { path: "b.txt" }, files);
    // Not awaited one by one: each reads the person's list and writes it back.
    await Promise.all([changes.ran("u1", "c1", true), changes.ran("u1", "c2", true), changes.ran("u2", "c1", true)]);
    expect((await changes.get("u1", "c1")).before).toBe("a");
    expect((await changes.get("u1", "c2")).before).toBe("b");
    expect((await changes.get("u2", "c1")).before).toBe("b");
    expect(storage.map.get("agent-changes-of:u1")).toEqual(["c1", "c2"]);
  });
});
