import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import type { BackupList, BackupRecord } from "../../protocol/backups";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { filesUrl, putFile, readHash, sha256 } from "../support/files";
import { journal, kill, peek, post, removeWhatWeMade, save, sh, testHooks, waitFor, wake } from "../support/lifecycle";
import { call, connect, createToken } from "../support/mcp-client";
import { createWorkspace, ownerApi } from "../support/session";
import { marker, openTerminalSocket } from "../support/terminal-client";

/**
 * Cells of issue 45's fault matrix that no other file covers: R2 unreachable
 * during a save and an agent's write_file, the container killed during a
 * backup and during a stop, and the resident agent killed while a terminal's
 * output flows. Each asserts the same things after the fault: a file is its
 * old or its new content, nothing acknowledged is lost, no half backup is
 * listed and every multipart upload ended, the error says what happened, and
 * the workspace works again without a manual step. docs/faults.md is the table.
 */

afterAll(removeWhatWeMade);

const json = { "Content-Type": "application/json" };

async function read(id: string, path: string): Promise<{ status: number; text: string }> {
  const response = await ownerApi(filesUrl(id, "/content", { path }));
  return { status: response.status, text: await response.text() };
}

/** R2 unreachable for this workspace's backups and save journal (test hook), or reachable again. */
async function r2Unreachable(id: string, unavailable: boolean): Promise<void> {
  const { status } = await post(`/api/workspaces/${id}/test-hooks/backups`, {
    headers: json,
    body: JSON.stringify({ unavailable }),
  });
  expect(status).toBe(204);
}

/** This workspace's multipart uploads since its object started (test hook). */
async function uploads(id: string): Promise<{ created: number; completed: number; aborted: number }> {
  return (await (await ownerApi(`/api/workspaces/${id}/test-hooks/backups/uploads`)).json()) as {
    created: number;
    completed: number;
    aborted: number;
  };
}

async function listedBackups(id: string): Promise<BackupList["backups"]> {
  return ((await (await ownerApi(`/api/workspaces/${id}/backups`)).json()) as BackupList).backups;
}

describe("R2 unreachable", () => {
  it("a save and an agent's write_file answer that the file is not safe yet; once R2 is back, saving again is kept through a killed container", async () => {
    const id = await createWorkspace("fault r2 save", "empty");
    // The IDE's own journal alone: a pass would journal the written bytes itself once R2 is back.
    await testHooks(id, { overrides: { outsideWritesMs: 3_600_000 } });
    const first = await wake(id);
    await save(id);
    expect((await putFile(id, "notes.txt", "old")).status).toBe(200);
    const before = await journal(id);
    expect(before.ops).toMatchObject([{ kind: "write", path: "/workspace/notes.txt", sha256: sha256("old") }]);
    const token = await createToken(id, "write", "fault-matrix");
    const agent = await connect(token.mcpUrl, token.token);
    try {
      await r2Unreachable(id, true);
      const refused = await putFile(id, "notes.txt", "new");
      const body = (await refused.json()) as { code: string; message: string };
      expect(refused.status, JSON.stringify(body)).toBe(503);
      expect(body.code).toBe("JOURNAL_UNAVAILABLE");
      expect(body.message).toMatch(/could not be kept safe in R2 .*save again/);
      // Old or new, never torn: the container took the bytes, the journal did not.
      expect(["old", "new"]).toContain((await read(id, "notes.txt")).text);
      const agentRefused = await call(agent, "write_file", { path: "agent.txt", content: "by the agent\n" });
      expect(agentRefused.isError).toBe(true);
      expect(agentRefused.text).toMatch(/could not be kept safe in R2/);
      // The journal still holds the acknowledged "old", and nothing unacknowledged is in it or left in R2.
      expect(await journal(id)).toEqual(before);

      // R2 back: the same two writes are acknowledged, journaled, and survive the container.
      await r2Unreachable(id, false);
      expect((await putFile(id, "notes.txt", "new")).status).toBe(200);
      const wrote = await call(agent, "write_file", { path: "agent.txt", content: "by the agent\n" });
      expect(wrote).toMatchObject({ isError: false });
      expect(wrote.text).toMatch(/Wrote 13 bytes/);
      expect((await journal(id)).ops.map((op) => [op.kind, op.path])).toEqual([
        ["write", "/workspace/notes.txt"],
        ["write", "/workspace/agent.txt"],
      ]);
      kill(first.container);
      const again = await wake(id);
      expect(again.status.restored).toMatchObject({ from: "snapshot" });
      expect(await read(id, "notes.txt")).toEqual({ status: 200, text: "new" });
      expect(await read(id, "agent.txt")).toEqual({ status: 200, text: "by the agent\n" });
    } finally {
      await r2Unreachable(id, false);
      await agent.close();
    }
  });

  it("a restore: it says the backup could not be read and changes nothing; once R2 is back, the restore works", async () => {
    const id = await createWorkspace("fault r2 restore", "empty");
    const { container } = await wake(id);
    sh(container, "echo backed-up > /workspace/kept.txt");
    const made = await post<BackupRecord>(`/api/workspaces/${id}/backups`);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    sh(container, "echo changed-after > /workspace/kept.txt && echo new > /workspace/later.txt");

    await r2Unreachable(id, true);
    const refused = await post<{ code: string; message: string }>(
      `/api/workspaces/${id}/backups/${made.body.id}/restore`,
    );
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.body).toMatchObject({
      code: "BACKUP_UNAVAILABLE",
      message: expect.stringMatching(/could not be read from R2 .*Nothing was changed/),
    });
    expect(sh(container, "cat /workspace/kept.txt /workspace/later.txt")).toBe("changed-after\nnew");
    expect(sh(container, "ls -A / | grep -c cloud-ide-restore || true")).toBe("0");
    expect((await listedBackups(id)).map((b) => b.id)).toEqual([made.body.id]);

    await r2Unreachable(id, false);
    const restored = await post(`/api/workspaces/${id}/backups/${made.body.id}/restore`);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(sh(container, "cat /workspace/kept.txt; ls /workspace")).toBe("backed-up\nkept.txt");
  });

  it("deleting a workspace: it says R2 did not answer and the workspace stays listed; deleting it again takes it and its backups", async () => {
    const id = await createWorkspace("fault r2 delete", "empty");
    await wake(id);
    const made = await post<BackupRecord>(`/api/workspaces/${id}/backups`);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await r2Unreachable(id, true);
    const refused = await ownerApi(`/api/workspaces/${id}`, { method: "DELETE" });
    const body = (await refused.json()) as { code: string; message: string };
    expect(refused.status, JSON.stringify(body)).toBe(503);
    expect(body).toMatchObject({
      code: "BACKUP_UNAVAILABLE",
      message: expect.stringMatching(/could not be deleted .*delete it again/),
    });
    const listed = (await (await ownerApi("/api/workspaces")).json()) as { id: string }[];
    expect(listed.map((w) => w.id)).toContain(id);

    await r2Unreachable(id, false);
    expect((await ownerApi(`/api/workspaces/${id}`, { method: "DELETE" })).status).toBe(204);
    const after = (await (await ownerApi("/api/workspaces")).json()) as { id: string }[];
    expect(after.map((w) => w.id)).not.toContain(id);
  });
});

describe("the container killed", () => {
  it("during a backup: an error that says why, no half backup listed, the upload aborted; the next backup is whole, and its restore survives a kill", async () => {
    const id = await createWorkspace("fault backup killed", "empty");
    const { container } = await wake(id);
    // Random, so it stays ~40 MB compressed: eight parts. Each part's upload is held 1.5 s, so the
    // archive is still streaming out of the container (at most four parts are held) when it is killed.
    sh(container, "head -c 40000000 /dev/urandom > /workspace/data.bin");
    await post(`/api/workspaces/${id}/test-hooks/backups`, {
      headers: json,
      body: JSON.stringify({ partDelayMs: 1500 }),
    });
    const pending = post<{ code: string; message: string }>(`/api/workspaces/${id}/backups`);
    await waitFor("the backup's multipart upload", async () => (await uploads(id)).created === 1 || undefined, 60_000);
    kill(container);
    const answer = await pending;
    expect(answer.status, JSON.stringify(answer.body)).toBeGreaterThanOrEqual(500);
    console.log(`the backup answered ${answer.status}: ${answer.body.message}`);
    expect(answer.body).toMatchObject({
      code: "BACKUP_UNAVAILABLE",
      message: expect.stringMatching(/container stopped while its files were being archived.*Nothing was stored/),
    });
    expect(await listedBackups(id)).toEqual([]);
    expect(await uploads(id)).toEqual({ created: 1, completed: 0, aborted: 1 });
    expect((await peek(id)).backup?.lastError).toEqual(expect.stringMatching(/.{20}/));

    // Without a manual step: the next wake and backup work, and the backup is whole.
    await post(`/api/workspaces/${id}/test-hooks/backups`, { headers: json, body: JSON.stringify({ partDelayMs: 0 }) });
    const again = await wake(id);
    sh(again.container, "head -c 3000000 /dev/urandom > /workspace/small.bin");
    const hash = sh(again.container, "sha256sum /workspace/small.bin");
    const made = await post<BackupRecord>(`/api/workspaces/${id}/backups`);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect((await listedBackups(id)).map((b) => b.id)).toEqual([made.body.id]);
    expect(await uploads(id)).toMatchObject({ completed: 1, aborted: 1 });
    sh(again.container, "rm /workspace/small.bin");
    const restored = await post(`/api/workspaces/${id}/backups/${made.body.id}/restore`);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(sh(again.container, "sha256sum /workspace/small.bin")).toBe(hash);

    // A restore that answered is kept: killed right after, the container comes back with the restored files.
    kill(again.container);
    const third = await wake(id);
    expect(sh(third.container, "sha256sum /workspace/small.bin")).toBe(hash);
  });

  it("during a stop with its snapshot: every acknowledged save is there after the next wake, and no half backup is listed", async () => {
    const id = await createWorkspace("fault stop killed", "empty");
    await testHooks(id, { overrides: { outsideWritesMs: 3_600_000 } });
    const { container } = await wake(id);
    await save(id);
    const big = new Uint8Array(randomBytes(8 * 1024 * 1024));
    expect((await putFile(id, "kept.bin", big)).status).toBe(200);
    const stopping = post<{ code?: string; message?: string }>(`/api/workspaces/${id}/stop`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    kill(container);
    const stopped = await stopping;
    // Either the stop finished before the kill, or it says what failed: both are outcomes a person can act on.
    console.log(`the stop answered ${stopped.status}: ${JSON.stringify(stopped.body).slice(0, 300)}`);
    expect(stopped.status === 200 || (stopped.body.message?.length ?? 0) > 20, JSON.stringify(stopped.body)).toBe(true);
    const status: WorkspaceStatus = await peek(id);
    console.log(`then the workspace is ${status.state}${status.error ? `: ${status.error.message}` : ""}`);

    await wake(id);
    expect(await readHash(id, "kept.bin")).toEqual({ status: 200, hash: sha256(big), size: big.byteLength });
    expect(await listedBackups(id)).toSatisfy((backups: BackupList["backups"]) =>
      backups.every((b) => b.size > 0 && /^[0-9a-f]{64}$/.test(b.sha256)),
    );
    const counted = await uploads(id);
    expect(counted.created).toBe(counted.completed + counted.aborted);
  });
});

describe("the resident agent killed", () => {
  it("while a terminal's output flows: the terminal keeps flowing and answers, and the next file operation gets a new agent", async () => {
    const id = await createWorkspace("fault agent killed", "empty");
    const { container } = await wake(id);
    const agentPid = () => sh(container, 'pgrep -f "cloud-ide[ ]resident agent" || true');
    expect((await putFile(id, "before.txt", "before")).status).toBe(200);
    const pid = agentPid();
    expect(pid).toMatch(/^\d+$/);
    const terminal = await openTerminalSocket(id, "flow");
    // Acknowledge what arrives, as the page does, so flow control never holds the output back.
    const acking = setInterval(() => terminal.ws.send(JSON.stringify({ type: "ack", bytes: terminal.received() })), 50);
    try {
      // tmux sends what changed on the screen, not every line: the ticks show the output still flowing.
      terminal.type("for i in $(seq 1 60); do seq 1 3000; echo tick-$i; sleep 0.1; done; echo flow-$((20+22))-done\r");
      await terminal.waitFor(/^tick-([1-5]\d)$/m, 30_000);
      sh(container, `kill -KILL ${pid}`);
      const atKill = terminal.received();
      await terminal.waitFor(/^flow-42-done$/m, 60_000);
      expect(terminal.received()).toBeGreaterThan(atKill);
      const { command, pattern } = marker();
      terminal.type(`${command}\r`);
      await terminal.waitFor(pattern, 30_000);
      expect(terminal.ws.readyState).toBe(terminal.ws.OPEN);
    } finally {
      clearInterval(acking);
      terminal.ws.close();
    }
    expect(await read(id, "before.txt")).toEqual({ status: 200, text: "before" });
    expect((await putFile(id, "after.txt", "after")).status).toBe(200);
    expect(agentPid()).toMatch(/^\d+$/);
    expect(agentPid()).not.toBe(pid);
  });
});
