import { describe, expect, it } from "vitest";
import { baseName, checkWorkspacePath, containerPath, parentPath } from "../../worker/files/workspace-path";

describe("checkWorkspacePath", () => {
  it("normalizes paths inside /workspace", () => {
    expect(checkWorkspacePath(".")).toEqual({ ok: true, path: "." });
    expect(checkWorkspacePath("./")).toEqual({ ok: true, path: "." });
    expect(checkWorkspacePath("src/index.ts")).toEqual({ ok: true, path: "src/index.ts" });
    expect(checkWorkspacePath("a//b/./c/")).toEqual({ ok: true, path: "a/b/c" });
    expect(checkWorkspacePath("..foo/bar..")).toEqual({ ok: true, path: "..foo/bar.." });
    expect(checkWorkspacePath("名前/ファイル.txt")).toEqual({ ok: true, path: "名前/ファイル.txt" });
  });

  it("refuses empty, absolute, '..', NUL and over-long paths", () => {
    for (const bad of [
      "",
      null,
      undefined,
      "/etc/passwd",
      "/",
      "..",
      "../x",
      "a/../../x",
      "a/..",
      "a\0b",
      `${"a/".repeat(2048)}b`,
      "n".repeat(256),
      `ok/${"é".repeat(128)}`,
    ]) {
      expect(checkWorkspacePath(bad).ok, JSON.stringify(bad)?.slice(0, 40)).toBe(false);
    }
    expect(checkWorkspacePath("n".repeat(255)).ok).toBe(true);
  });
});

describe("path helpers", () => {
  it("maps to container paths and splits names", () => {
    expect(containerPath(".")).toBe("/workspace");
    expect(containerPath("a/b")).toBe("/workspace/a/b");
    expect(baseName("a/b.txt")).toBe("b.txt");
    expect(baseName(".")).toBe("workspace");
    expect(parentPath("a/b/c")).toBe("a/b");
    expect(parentPath("a")).toBe(".");
  });
});
