import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { GitStatus } from "../../protocol/git";
import type { GitApi } from "../api/git";
import { GitModel, marksOf } from "./git-model";

const clean: GitStatus = {
  repository: true,
  branch: { head: "main", oid: "abc" },
  staged: [],
  changed: [],
  untracked: [],
  conflicted: [],
  truncated: false,
  total: 0,
};

/** A GitApi stand-in whose status calls the test settles one at a time. */
function fakeApi() {
  const pending: ((status: GitStatus) => void)[] = [];
  const api = {
    status: vi.fn(() => new Promise<GitStatus>((resolve) => pending.push(resolve))),
    branches: vi.fn(async () => []),
    log: vi.fn(async () => []),
    checkout: vi.fn(async () => clean),
  };
  return { api, pending, model: new GitModel(api as unknown as GitApi, { list: () => [], reload: async () => {} }) };
}

describe("GitModel", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("folds a burst of changes into one git status, and one more for what came while it ran", async () => {
    const { api, pending, model } = fakeApi();
    for (let i = 0; i < 50; i++) model.onFileEvent({ kind: "changes", changes: [{ type: "modified", path: `f${i}` }] });
    await vi.advanceTimersByTimeAsync(100);
    expect(api.status).toHaveBeenCalledTimes(1);
    // Without waking a sleeping workspace.
    expect(api.status).toHaveBeenCalledWith({ wake: false });
    for (let i = 0; i < 50; i++) model.onFileEvent({ kind: "git" });
    await vi.advanceTimersByTimeAsync(1000);
    expect(api.status).toHaveBeenCalledTimes(1);
    pending.shift()?.(clean);
    await vi.advanceTimersByTimeAsync(1000);
    expect(api.status).toHaveBeenCalledTimes(2);
    pending.shift()?.(clean);
    await vi.advanceTimersByTimeAsync(1000);
    // A change in .git reads branches and the log as well.
    expect(api.log).toHaveBeenCalledTimes(1);
    expect(api.status).toHaveBeenCalledTimes(2);
  });

  it("reloads open files after a checkout", async () => {
    const reloaded: string[] = [];
    const api = { checkout: async () => clean, branches: async () => [], log: async () => [] };
    const model = new GitModel(api as unknown as GitApi, {
      list: () => [{ path: "a.ts" }, { path: "b.ts" }],
      reload: async (path) => {
        reloaded.push(path);
      },
    });
    await model.checkout("feature");
    expect(reloaded).toEqual(["a.ts", "b.ts"]);
    expect(model.getSnapshot().status).toEqual(clean);
  });
});

describe("marksOf", () => {
  it("marks files with their change and their folders with a dot; a conflict wins", () => {
    const marks = marksOf({
      ...clean,
      staged: [{ path: "src/a/x.ts", code: "A" }],
      changed: [{ path: "src/b.ts", code: "M" }],
      untracked: [{ path: "new.txt", code: "?" }],
      conflicted: [{ path: "src/b.ts", code: "U" }],
      total: 3,
    });
    expect(Object.fromEntries(marks)).toEqual({
      "new.txt": "?",
      "src/a/x.ts": "A",
      "src/a": "•",
      src: "•",
      "src/b.ts": "U",
    });
    expect(marksOf({ repository: false }).size).toBe(0);
  });
});
