import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import type { WorkspaceStatus } from "../../protocol/workspace";
import {
  containerId,
  isRunning,
  peek,
  post,
  removeWhatWeMade,
  save,
  sh,
  testHooks,
  waitFor,
  wake,
} from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";

/** Files, an installed package, a file outside /workspace and shell history. */
function writeWork(container: string, tag: string): void {
  sh(
    container,
    `set -e; cd /workspace; echo "${tag}" > notes.txt; mkdir -p src/deep; echo "export const x = 1;" > src/deep/x.ts
     npm init -y >/dev/null; npm install --no-audit --no-fund --loglevel=error is-number@7.0.0 >/dev/null
     printf '#!/bin/sh\\necho hello-from-usr-local\\n' > /usr/local/bin/hello-${tag}; chmod +x /usr/local/bin/hello-${tag}
     echo "echo history-${tag}" >> /root/.bash_history`,
  );
}

function expectWork(container: string, tag: string): void {
  expect(sh(container, "cat /workspace/notes.txt")).toBe(tag);
  expect(sh(container, "cat /workspace/src/deep/x.ts")).toBe("export const x = 1;");
  expect(sh(container, `cd /workspace && node -e 'console.log(require("is-number")(5))'`)).toBe("true");
  expect(sh(container, `hello-${tag}`)).toBe("hello-from-usr-local");
  expect(sh(container, "cat /root/.bash_history")).toContain(`echo history-${tag}`);
}

afterAll(removeWhatWeMade);

describe("workspaces that last", () => {
  it("stop saves and removes the container; the next open restores files, packages and history", async () => {
    const id = await createWorkspace();
    const first = await wake(id);
    expect(first.status.lastSavedAt).toBeNull();
    const firstId = containerId(first.container);
    writeWork(first.container, "stopped-then-opened");

    const stopped = await post<{ snapshotId: string; savedAt: string }>(`/api/workspaces/${id}/stop`);
    expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
    expect(stopped.body.snapshotId).toEqual(expect.any(String));
    expect(isRunning(first.container)).toBe(false);
    expect(await peek(id)).toMatchObject({ state: "sleeping", lastSavedAt: stopped.body.savedAt });

    const second = await wake(id);
    expect(containerId(second.container)).not.toBe(firstId);
    expect(second.status.lastSavedAt).toBe(stopped.body.savedAt);
    expectWork(second.container, "stopped-then-opened");
  });

  it("an idle workspace saves and sleeps by itself, and wakes with everything", async () => {
    const id = await createWorkspace();
    const first = await wake(id);
    writeWork(first.container, "slept");
    // Test-only timings for this workspace: idle after 3 s, checked every second.
    await testHooks(id, { overrides: { idleMs: 3000, checkMs: 1000 } });

    const asleep = await waitFor("the workspace to sleep", async () => {
      const status = await peek(id);
      return status.state === "sleeping" ? status : undefined;
    });
    expect(asleep.lastSavedAt).toEqual(expect.any(String));
    expect(isRunning(first.container)).toBe(false);

    // Back to the normal idle limit, so the woken workspace stays up while we look.
    await testHooks(id, { overrides: {} });
    const second = await wake(id);
    expectWork(second.container, "slept");
  });

  it("periodic saves keep changes made while the workspace is in use", async () => {
    const id = await createWorkspace();
    const { container } = await wake(id);
    await testHooks(id, { overrides: { checkMs: 1000, checkpointMs: 1000 } });
    const firstSave = await waitFor("a first checkpoint", async () => (await peek(id)).lastSavedAt ?? undefined);
    sh(container, "echo changed > /workspace/changed.txt");
    const secondSave = await waitFor("a checkpoint after the change", async () => {
      const at = (await peek(id)).lastSavedAt;
      return at && at > firstSave ? at : undefined;
    });
    expect(secondSave > firstSave).toBe(true);
    // Nothing changed since: no further save within several checks.
    await new Promise((r) => setTimeout(r, 4000));
    expect((await peek(id)).lastSavedAt).toBe(secondSave);
    expect(isRunning(container)).toBe(true);
    await testHooks(id, { overrides: {} });
  });

  /*
   * What can be lost: changes made after the latest snapshot. When the
   * container disappears without a save (here `docker rm -f`; on Cloudflare a
   * host failure), the workspace comes back as of its latest snapshot, which
   * is at most one checkpoint interval (5 minutes by default, while files
   * change) old, or as of the last Save / stop / idle sleep if later.
   */
  it("a container removed from outside comes back from the latest snapshot, without later changes", async () => {
    const id = await createWorkspace();
    const first = await wake(id);
    const firstId = containerId(first.container);
    sh(first.container, "echo before-snapshot > /workspace/kept.txt");
    const saved = await save(id);
    sh(first.container, "echo after-snapshot > /workspace/lost.txt");

    // A status poll runs while the container is removed.
    const polling = (async () => {
      const seen: WorkspaceStatus[] = [];
      for (let i = 0; i < 20; i++) seen.push(await peek(id));
      return seen;
    })();
    execFileSync("docker", ["rm", "-f", first.container], { stdio: "ignore" });
    await polling;

    const second = await wake(id);
    expect(containerId(second.container)).not.toBe(firstId);
    expect(second.status.lastSavedAt).toBe(saved.savedAt);
    expect(sh(second.container, "cat /workspace/kept.txt")).toBe("before-snapshot");
    expect(sh(second.container, "test -e /workspace/lost.txt && echo present || echo gone")).toBe("gone");
  });

  it("a snapshot that cannot be restored is reported as failed, not replaced by an empty workspace", async () => {
    const id = await createWorkspace();
    await testHooks(id, { snapshotId: "no-such-snapshot-0000" });
    const response = await ownerApi(`/api/workspaces/${id}/status`);
    const status = (await response.json()) as WorkspaceStatus;
    expect(status.state).toBe("failed");
    expect(status.error?.code).toBe("SNAPSHOT_RESTORE_FAILED");
    expect(status.error?.message).toMatch(/start fresh|import/i);
    expect(await peek(id)).toMatchObject({ state: "failed" });

    // The way out: start fresh gives an empty, working workspace.
    const reset = await post(`/api/workspaces/${id}/reset`);
    expect(reset.status).toBe(204);
    const fresh = await wake(id);
    expect(sh(fresh.container, "ls -A /workspace | wc -l")).toBe("0");
  });

  it("refuses start fresh for a workspace that has its files", async () => {
    const id = await createWorkspace();
    await wake(id);
    const reset = await post<{ code: string }>(`/api/workspaces/${id}/reset`);
    expect(reset.status).toBe(409);
    expect(reset.body.code).toBe("INVALID_STATE");
  });
});
