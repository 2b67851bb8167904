import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ImportResult } from "../../protocol/workspace";
import { peek, post, removeWhatWeMade, sh, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";

afterAll(removeWhatWeMade);

/** A gzip tar with the given members, written by Python's tarfile so names are exactly as given. */
function tarGz(members: Record<string, string>): Uint8Array<ArrayBuffer> {
  const script = `
import io, json, sys, tarfile
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w:gz") as t:
    for name, text in json.loads(sys.argv[1]).items():
        data = text.encode()
        info = tarfile.TarInfo(name); info.size = len(data); info.mode = 0o644
        t.addfile(info, io.BytesIO(data))
sys.stdout.buffer.write(buf.getvalue())`;
  return new Uint8Array(execFileSync("python3", ["-c", script, JSON.stringify(members)]));
}

describe("export and import", () => {
  it("round-trips a workspace through a tar.gz into a new workspace", async () => {
    const source = await createWorkspace("source");
    const { container } = await wake(source);
    sh(
      container,
      `cd /workspace && mkdir -p app/src .config && echo "hello" > app/src/index.js && echo secret > .config/x && printf '\\000\\377' > bin.dat && ln -s app/src/index.js link.js && chmod 755 app/src/index.js`,
    );

    const exported = await ownerApi(`/api/workspaces/${source}/export`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toBe("application/gzip");
    expect(exported.headers.get("content-disposition")).toContain(`${source}.tar.gz`);
    const archive = new Uint8Array(await exported.arrayBuffer());

    const dir = mkdtempSync(join(tmpdir(), "lifecycle-export-"));
    try {
      execFileSync("tar", ["-xzf", "-", "-C", dir], { input: archive });
      expect(readFileSync(join(dir, "app/src/index.js"), "utf8")).toBe("hello\n");
      expect(readFileSync(join(dir, ".config/x"), "utf8")).toBe("secret\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const target = await createWorkspace("imported");
    const imported = await post<ImportResult>(`/api/workspaces/${target}/import`, {
      body: archive,
      headers: { "Content-Type": "application/gzip" },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.entries).toBe(4);
    // The import is saved at once, so it lasts without waiting for a checkpoint.
    expect((await peek(target)).lastSavedAt).toBe(imported.body.saved.savedAt);

    const stopped = await post(`/api/workspaces/${target}/stop`);
    expect(stopped.status).toBe(200);
    const { container: restored } = await wake(target);
    expect(sh(restored, "cat /workspace/app/src/index.js /workspace/.config/x")).toBe("hello\nsecret");
    expect(sh(restored, "od -An -tx1 /workspace/bin.dat")).toBe("00 ff");
    expect(sh(restored, "readlink /workspace/link.js")).toBe("app/src/index.js");
    expect(sh(restored, "stat -c %a /workspace/app/src/index.js")).toBe("755");
  });

  it("refuses to import over existing files", async () => {
    const id = await createWorkspace();
    const { container } = await wake(id);
    sh(container, "echo mine > /workspace/mine.txt");
    const result = await post<{ code: string }>(`/api/workspaces/${id}/import`, { body: tarGz({ "a.txt": "a" }) });
    expect(result.status).toBe(409);
    expect(result.body.code).toBe("WORKSPACE_NOT_EMPTY");
    expect(sh(container, "ls -A /workspace")).toBe("mine.txt");
  });

  it("refuses an archive that is not a tar.gz and leaves the workspace empty", async () => {
    const id = await createWorkspace();
    const { container } = await wake(id);
    const result = await post<{ code: string; message: string }>(`/api/workspaces/${id}/import`, {
      body: "this is not an archive",
    });
    expect(result.status).toBe(400);
    expect(result.body.code).toBe("INVALID_ARCHIVE");
    expect(sh(container, "ls -A /workspace | wc -l")).toBe("0");
  });

  it("refuses members with .. and writes nothing outside /workspace", async () => {
    const id = await createWorkspace();
    const { container } = await wake(id);
    const result = await post<{ code: string; message: string }>(`/api/workspaces/${id}/import`, {
      body: tarGz({ "ok.txt": "ok", "../escape-lifecycle.txt": "bad", "a/../../escape2-lifecycle.txt": "bad" }),
    });
    expect(result.status).toBe(400);
    expect(result.body.code).toBe("INVALID_ARCHIVE");
    expect(result.body.message).toContain("..");
    expect(sh(container, "ls / /workspace | grep -c escape || true")).toBe("0");
    expect(sh(container, "ls -A /workspace | wc -l")).toBe("0");
  });

  it("extracts absolute member names inside /workspace, never at the root", async () => {
    const id = await createWorkspace();
    const { container } = await wake(id);
    const result = await post(`/api/workspaces/${id}/import`, {
      body: tarGz({ "/etc/abs-lifecycle.txt": "abs" }),
    });
    // GNU tar strips the leading "/" (and warns, exit 0).
    expect(result.status).toBe(200);
    expect(sh(container, "cat /workspace/etc/abs-lifecycle.txt")).toBe("abs");
    expect(sh(container, "test -e /etc/abs-lifecycle.txt && echo yes || echo no")).toBe("no");
  });
});
