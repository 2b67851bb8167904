/**
 * The Worker restarted on the same persisted state (issue 45's matrix), as a
 * deploy or a crash of workerd restarts it: this test starts an IDE of its
 * own (scripts/lib/dev-server.mjs), saves through it, co-edits without
 * saving, and restarts it (workerd stopped, then started again on the same
 * state; its containers go with it here). After the restart the workspace
 * answers and says it is stopped, a read says to wake it, and a wake brings
 * back every save (the save journal, docs/lifecycle.md) and the unsaved
 * shared text (kept in the Durable Object's storage). Cut mid-backup, no
 * half backup is listed and the next backup aborts the R2 upload the restart
 * left open; cut mid-upload, the file keeps its old bytes and the next chunk
 * says to upload it again.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CollabSaved } from "../../protocol/collab";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { type CollabClient, connectCollab } from "../../scripts/lib/collab-client.mjs";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";
import { readDevVars } from "../../scripts/lib/dev-vars.mjs";
import { setup } from "../../scripts/lib/setup.mjs";
import { sha256 } from "../support/files";
import { r2UploadsInProgress } from "../support/r2-objects";

let server: Awaited<ReturnType<typeof startDevServer>>;
let cookie = "";
const clients: CollabClient[] = [];

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("Origin", server.baseUrl);
  headers.set("Cookie", cookie);
  return fetch(new URL(path, server.baseUrl), { ...init, headers });
}

async function json<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await api(path, init);
  return { status: response.status, body: (await response.json()) as T };
}

async function collab(id: string, path: string): Promise<CollabClient> {
  const url = new URL(`/ws/workspaces/${id}/collab/file`, server.baseUrl);
  url.protocol = "ws:";
  url.searchParams.set("path", path);
  const client = await connectCollab(url, { Origin: server.baseUrl, Cookie: cookie });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  // Its output beside the tier's own server log, for a failed run.
  const log = process.env.CLOUD_IDE_SERVER_LOG;
  server = await startDevServer(await setup(), log ? { logFile: log.replace(/\.log$/, "-worker-restart.log") } : {});
  const signIn = await api("/api/session", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ password: readDevVars().IDE_PASSWORD }),
  });
  expect(signIn.status).toBe(204);
  cookie = (signIn.headers.get("Set-Cookie") ?? "").split(";")[0] ?? "";
}, 300_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.stop();
}, 120_000);

describe("the Worker restarted", () => {
  it("keeps every save and the unsaved shared text: the workspace says it stopped, and a wake brings them back", async () => {
    const made = await json<{ id: string }>("/api/workspaces", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "worker restart", template: "empty" }),
    });
    expect(made.status).toBe(201);
    const id = made.body.id;
    expect((await api(`/api/workspaces/${id}/wake`, { method: "POST" })).status).toBe(200);
    const put = (path: string, body: string) =>
      api(`/api/workspaces/${id}/files/content?path=${encodeURIComponent(path)}`, { method: "PUT", body });
    expect((await put("saved.txt", "saved before the restart\n")).status).toBe(200);
    expect((await put("shared.md", "# Shared\n")).status).toBe(200);
    const writer = await collab(id, "shared.md");
    writer.text.insert(writer.text.length, "typed, never saved\n");
    const typed = "# Shared\ntyped, never saved\n";
    const witness = await collab(id, "shared.md");
    await witness.until(() => witness.text.toString() === typed, "the edit at a second client");
    // At once: each edit is stored as it arrives, before the server sends it on to the witness
    // (worker/collab/workspace-collab.ts); the whole state would be stored only 250 ms later.
    await server.restart();

    // It answers, and says what happened: stopped, not running without a container.
    const status = await json<WorkspaceStatus>(`/api/workspaces/${id}/status?wake=0`);
    expect(status.status).toBe(200);
    expect(status.body.state).toBe("stopped");
    const asleep = await json<{ code: string; message: string }>(`/api/workspaces/${id}/files/content?path=saved.txt`);
    expect(asleep).toMatchObject({ status: 409, body: { code: "WORKSPACE_ASLEEP" } });
    expect(asleep.body.message).toContain("wake");

    const woken = await json<WorkspaceStatus>(`/api/workspaces/${id}/wake`, { method: "POST" });
    expect(woken.status).toBe(200);
    expect(woken.body.state).toBe("running");
    const saved = await api(`/api/workspaces/${id}/files/content?path=saved.txt`);
    expect([saved.status, await saved.text()]).toEqual([200, "saved before the restart\n"]);

    const back = await collab(id, "shared.md");
    expect(back.text.toString()).toBe(typed);
    const answer = (await back.save()) as { saved?: CollabSaved };
    expect(answer.saved?.text).toBe(typed);
    const onDisk = await api(`/api/workspaces/${id}/files/content?path=shared.md`);
    expect([onDisk.status, await onDisk.text()]).toEqual([200, typed]);

    expect((await api(`/api/workspaces/${id}`, { method: "DELETE" })).status).toBe(204);
  });

  it("cut mid-backup and mid-upload: no half backup, the upload left open in R2 aborted by the next backup, the file's old bytes kept", async () => {
    const made = await json<{ id: string }>("/api/workspaces", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "worker restart mid-backup", template: "empty" }),
    });
    expect(made.status).toBe(201);
    const id = made.body.id;
    expect((await api(`/api/workspaces/${id}/wake`, { method: "POST" })).status).toBe(200);
    const put = (path: string, body: Uint8Array<ArrayBuffer>) =>
      api(`/api/workspaces/${id}/files/content?path=${encodeURIComponent(path)}`, { method: "PUT", body });
    // Random, so it stays ~40 MB compressed; each part held 1.5 s keeps the backup running for the restart.
    expect((await put("data.bin", new Uint8Array(randomBytes(40 * 1024 * 1024)))).status).toBe(200);
    const old = new Uint8Array(randomBytes(1024 * 1024));
    expect((await put("big.bin", old)).status).toBe(200);
    const hooks = await api(`/api/workspaces/${id}/test-hooks/backups`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ partDelayMs: 1500 }),
    });
    expect(hooks.status).toBe(204);
    const chunk = (offset: number, bytes: Uint8Array<ArrayBuffer>, final = false) =>
      api(
        `/api/workspaces/${id}/files/upload?path=big.bin&upload=restartcut01&offset=${offset}${final ? "&final=1" : ""}`,
        { method: "PUT", body: bytes },
      );
    const next = new Uint8Array(randomBytes(8 * 1024 * 1024));
    expect((await chunk(0, next.subarray(0, 4 * 1024 * 1024))).status).toBe(200);

    const backup = api(`/api/workspaces/${id}/backups`, { method: "POST" }).then(
      (response) => `answered ${response.status}`,
      (error: Error) => `cut: ${error.message}`,
    );
    for (let tries = 0; ; tries++) {
      const counted = (await (await api(`/api/workspaces/${id}/test-hooks/backups/uploads`)).json()) as {
        created: number;
      };
      if (counted.created === 1) break;
      if (tries > 240) throw new Error("the backup never began its upload");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await server.restart();
    expect(await backup).not.toBe("answered 201");
    expect(r2UploadsInProgress("", server.stateDir)).toHaveLength(1);

    const listed = await json<{ backups: unknown[] }>(`/api/workspaces/${id}/backups`);
    expect(listed.body.backups).toEqual([]);
    expect((await api(`/api/workspaces/${id}/wake`, { method: "POST" })).status).toBe(200);
    // The upload's first chunk went with the container: the next one says to start again, the file is old.
    const gone = await chunk(4 * 1024 * 1024, next.subarray(4 * 1024 * 1024), true);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({
      code: "UPLOAD_NOT_FOUND",
      message: expect.stringMatching(/upload the file again/),
    });
    const kept = await api(`/api/workspaces/${id}/files/content?path=big.bin`);
    expect(sha256(new Uint8Array(await kept.arrayBuffer()))).toBe(sha256(old));

    const again = await json<{ id: string }>(`/api/workspaces/${id}/backups`, { method: "POST" });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(r2UploadsInProgress("", server.stateDir)).toEqual([]);
    expect((await api(`/api/workspaces/${id}`, { method: "DELETE" })).status).toBe(204);
  }, 300_000);
});
