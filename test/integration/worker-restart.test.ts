/**
 * The Worker restarted on the same persisted state (issue 45's matrix), as a
 * deploy or a crash of workerd restarts it: this test starts an IDE of its
 * own (scripts/lib/dev-server.mjs), saves through it, co-edits without
 * saving, and restarts it (workerd stopped, then started again on the same
 * state; its containers go with it here). After the restart the workspace
 * answers and says it is stopped, a read says to wake it, and a wake brings
 * back every save (the save journal, docs/lifecycle.md) and the unsaved
 * shared text (kept in the Durable Object's storage).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CollabSaved } from "../../protocol/collab";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { type CollabClient, connectCollab } from "../../scripts/lib/collab-client.mjs";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";
import { readDevVars } from "../../scripts/lib/dev-vars.mjs";
import { setup } from "../../scripts/lib/setup.mjs";

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
});
