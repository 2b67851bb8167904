import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { runContainers } from "../support/containers";
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
import { createWorkspace, ownerApi, ownerWebSocket } from "../support/session";
import { marker, openTerminalSocket } from "../support/terminal-client";

/**
 * Files, an installed package, a file outside /workspace and shell history,
 * typed into the workspace's terminal as a user would.
 */
async function writeWork(id: string, tag: string): Promise<void> {
  const term = await openTerminalSocket(id, `work-${tag}`);
  const done = marker();
  const line = [
    `cd /workspace && echo "${tag}" > notes.txt && mkdir -p src/deep && echo "export const x = 1;" > src/deep/x.ts`,
    "npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error is-number@7.0.0 >/dev/null",
    `printf '#!/bin/sh\\necho hello-from-usr-local\\n' > /usr/local/bin/hello-${tag} && chmod +x /usr/local/bin/hello-${tag}`,
    `echo history-${tag} && ${done.command}`,
  ].join(" && ");
  term.type(`${line}\r`);
  await term.waitFor(done.pattern, 120_000);
  term.ws.close();
  await term.closed;
}

function expectWork(container: string, tag: string): void {
  expect(sh(container, "cat /workspace/notes.txt")).toBe(tag);
  expect(sh(container, "cat /workspace/src/deep/x.ts")).toBe("export const x = 1;");
  expect(sh(container, `cd /workspace && node -e 'console.log(require("is-number")(5))'`)).toBe("true");
  expect(sh(container, `hello-${tag}`)).toBe("hello-from-usr-local");
  // The shell appends each command to its history as it runs (PROMPT_COMMAND).
  expect(sh(container, "cat /root/.bash_history")).toContain(`echo history-${tag}`);
}

/** What an automatic reconnect (`?wake=0`) hears before its socket closes, when it is not let in. */
async function sleepingAnswer(id: string): Promise<unknown[]> {
  const socket = await ownerWebSocket(`/ws/workspaces/${id}/terminals/main?wake=0`);
  const messages: unknown[] = [];
  socket.on("message", (data, isBinary) => messages.push(isBinary ? "terminal output" : JSON.parse(data.toString())));
  await new Promise((resolve) => socket.on("close", resolve));
  return messages;
}

afterAll(removeWhatWeMade);

describe("workspaces that last", () => {
  it("stop saves and removes the container; the next open restores files, packages and history", async () => {
    const id = await createWorkspace();
    const first = await wake(id);
    expect(first.status.lastSavedAt).toBeNull();
    const firstId = containerId(first.container);
    await writeWork(id, "stopped-then-opened");

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
    await writeWork(id, "slept");
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
   * What can be lost: changes no snapshot and no journal holds yet. When the
   * container disappears without a save (here `docker rm -f`; on Cloudflare a
   * host failure), the workspace comes back as of its latest snapshot (the
   * last Save, stop, idle sleep or checkpoint) plus the save journal: every
   * save the IDE acknowledged, and what programs wrote under /workspace up to
   * the last pass (every 30 s; outside-writes.test.ts). Here the passes are
   * an hour apart, so a terminal's write after the snapshot is lost, as one
   * made in the last 30 s would be.
   */
  it("a container removed while a terminal is open comes back from the latest snapshot, without changes no pass journaled", async () => {
    const id = await createWorkspace();
    await testHooks(id, { overrides: { outsideWritesMs: 3_600_000 } });
    const first = await wake(id);
    const firstId = containerId(first.container);
    const term = await openTerminalSocket(id, "main");
    const kept = marker();
    term.type(`echo before-snapshot > /workspace/kept.txt && ${kept.command}\r`);
    await term.waitFor(kept.pattern);
    const saved = await save(id);
    const lost = marker();
    term.type(`echo after-snapshot > /workspace/lost.txt && ${lost.command}\r`);
    await term.waitFor(lost.pattern);

    execFileSync("docker", ["rm", "-f", first.container], { stdio: "ignore" });
    // The socket closes without "exit": for the page, a dropped connection to reconnect.
    expect((await term.closed).code).toBe(1011);
    expect(term.messages).not.toContainEqual(expect.objectContaining({ type: "exit" }));

    // The page's automatic reconnect (`wake=0`) brings the workspace back
    // rather than finding it asleep: it was not put to sleep.
    const again = await openTerminalSocket(id, "main", { wake: false });
    expect(again.messages).not.toContainEqual({ type: "sleeping" });
    const check = marker();
    // Upper case: the typed line cannot match. The screen is read, not the
    // bytes: tmux may redraw it with cursor moves rather than line breaks.
    again.type(`tr a-z A-Z < /workspace/kept.txt; ls /workspace/lost.txt; ${check.command}\r`);
    const lines = (await again.waitFor(check.pattern)).split("\n");
    expect(lines).toContain("BEFORE-SNAPSHOT");
    expect(lines).toContain("ls: cannot access '/workspace/lost.txt': No such file or directory");
    again.ws.close();

    const second = runContainers().find((name) => name === first.container);
    expect(second, "a new container under the workspace's name").toBeDefined();
    expect(containerId(first.container)).not.toBe(firstId);
    expect((await peek(id)).lastSavedAt).toBe(saved.savedAt);
  });

  it("a terminal of a workspace stopped on purpose does not wake it by reconnecting", async () => {
    const id = await createWorkspace();
    const first = await wake(id);
    const term = await openTerminalSocket(id, "main");
    const stopped = await post(`/api/workspaces/${id}/stop`);
    expect(stopped.status).toBe(200);
    expect((await term.closed).code).toBe(1011);

    expect(await sleepingAnswer(id)).toEqual([{ type: "sleeping" }]);
    expect(isRunning(first.container)).toBe(false);
    expect(await peek(id)).toMatchObject({ state: "sleeping" });
  });

  it("a snapshot that cannot be restored is reported as failed, not replaced by an empty workspace", async () => {
    const id = await createWorkspace();
    await testHooks(id, { snapshotId: "no-such-snapshot-0000" });
    const response = await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" });
    const status = (await response.json()) as WorkspaceStatus;
    expect(status.state).toBe("failed");
    expect(status.error?.code).toBe("SNAPSHOT_RESTORE_FAILED");
    expect(status.error?.message).toMatch(/start fresh|import/i);
    expect(await peek(id)).toMatchObject({ state: "failed" });

    // The way out: start fresh gives a new workspace from the image (the starter app).
    const reset = await post(`/api/workspaces/${id}/reset`);
    expect(reset.status).toBe(204);
    const fresh = await wake(id);
    expect(fresh.status.lastSavedAt).toBeNull();
    // The starter app again, from the image.
    expect(sh(fresh.container, "test -f /workspace/package.json && test -d /workspace/node_modules && echo ok")).toBe(
      "ok",
    );
  });

  it("after a failed start, automatic reconnects are told why, then try again by themselves", async () => {
    // A snapshot another workspace saved: restorable, unlike the missing one first.
    const donor = await createWorkspace();
    const donorContainer = (await wake(donor)).container;
    sh(donorContainer, "echo from-donor > /workspace/donor.txt");
    const restorable = await save(donor);

    const id = await createWorkspace();
    await testHooks(id, { snapshotId: "no-such-snapshot-0001" });
    const failed = (await (await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" })).json()) as WorkspaceStatus;
    expect(failed.state).toBe("failed");

    // Right after the failure, a reconnect does not start it again: it hears why it sleeps.
    const [answer] = await sleepingAnswer(id);
    expect(answer).toMatchObject({ type: "sleeping", reason: expect.stringMatching(/could not be restored/) });

    // The cause goes away (here: the workspace is pointed at a restorable
    // snapshot); after the pause, the next automatic reconnect brings it back.
    await testHooks(id, { snapshotId: restorable.snapshotId });
    // Until the pause has passed, each reconnect is told it sleeps (and closes before "ready").
    const again = await waitFor("an automatic reconnect after the pause", () =>
      openTerminalSocket(id, "main", { wake: false }).catch(() => undefined),
    );
    const check = marker();
    again.type(`cat /workspace/donor.txt; ${check.command}\r`);
    // A line of its own on the screen (tmux may draw it with cursor addressing, not "\r\n").
    expect((await again.waitFor(check.pattern)).split("\n")).toContain("from-donor");
    again.ws.close();
    expect(await peek(id)).toMatchObject({ state: "running" });
  });

  it("refuses start fresh for a workspace that has its files", async () => {
    const id = await createWorkspace();
    await wake(id);
    const reset = await post<{ code: string }>(`/api/workspaces/${id}/reset`);
    expect(reset.status).toBe(409);
    expect(reset.body.code).toBe("INVALID_STATE");
  });
});
