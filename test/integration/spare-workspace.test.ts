// The spare: the container of a user's next new workspace starts while they
// type its name (POST /api/workspaces/spare), and the workspace they then
// create with `spare: id` is that container, already running, with its
// template and its owner's git identity; unclaimed, it goes unsaved. Real
// containers through workerd; each test is its own Access user, so no other
// test's workspace can take its spare.
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import type { WorkspaceStatus } from "../../protocol/workspace";
import type { SpareWorkspace, WorkspaceSummary } from "../../protocol/workspaces";
import { api } from "../support/api";
import { dockerExec, runContainers } from "../support/containers";
import { createInvite, joinAsGuest } from "../support/guests";
import { waitFor } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";
import { accessUser } from "../support/users";

const made = new Set<string>();

afterAll(() => {
  for (const name of made) execFileSync("docker", ["rm", "-f", name], { stdio: "ignore" });
});

type Headers = Record<string, string>;

async function json<T>(user: Headers, path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await api(path, {
    ...init,
    headers: { ...user, ...(init.body ? { "Content-Type": "application/json" } : {}), ...init.headers },
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** Waits until the spare's status (read without waking it) says it runs. */
function untilRunning(user: Headers, id: string): Promise<true> {
  return waitFor("the spare to run", async () => {
    const peek = await json<WorkspaceStatus>(user, `/api/workspaces/${id}/status?wake=0`);
    return peek.body.state === "running" ? true : undefined;
  });
}

/** Asks for a spare and waits until its container runs; returns its id and that container's name. */
async function runningSpare(user: Headers): Promise<{ id: string; container: string }> {
  const before = new Set(runContainers());
  const { status, body } = await json<SpareWorkspace>(user, "/api/workspaces/spare", { method: "POST" });
  expect(status, JSON.stringify(body)).toBe(200);
  expect(Date.parse(body.expiresAt)).toBeGreaterThan(Date.now());
  await untilRunning(user, body.id);
  const started = runContainers().filter((name) => !before.has(name));
  expect(started).toHaveLength(1);
  const container = started[0] as string;
  made.add(container);
  return { id: body.id, container };
}

async function create(user: Headers, body: Record<string, unknown>): Promise<WorkspaceSummary> {
  const created = await json<WorkspaceSummary>(user, "/api/workspaces", { method: "POST", body: JSON.stringify(body) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

describe("a spare workspace", () => {
  it("becomes the new workspace: the same container, already running, with its template and owner", async () => {
    const user = await accessUser("spare-claim@example.com");
    const spare = await runningSpare(user);
    // Not in the list until it is claimed, and no work can be done in it (it would go with it, unsaved).
    const listed = await json<WorkspaceSummary[]>(user, "/api/workspaces");
    expect(listed.body.map((w) => w.id)).not.toContain(spare.id);
    for (const path of ["/files?path=.", "/terminals"]) {
      const refused = await json<{ code: string; message: string }>(user, `/api/workspaces/${spare.id}${path}`);
      expect(refused.status).toBe(404);
      expect(refused.body.message).toMatch(/this is a spare/);
    }

    const workspace = await create(user, { name: "from a spare", spare: spare.id });
    expect(workspace.id).toBe(spare.id);
    const status = await json<WorkspaceStatus>(user, `/api/workspaces/${spare.id}/status?wake=0`);
    expect(status.body.state).toBe("running");
    // No other container was started for it, and the one it has answers.
    expect(runContainers()).toContain(spare.container);
    expect(dockerExec(spare.container, ["ls", "/workspace"]).split("\n")).toEqual(
      expect.arrayContaining(["index.html", "package.json", "src"]),
    );
    // What a first start does for its owner: git's author.
    expect(dockerExec(spare.container, ["git", "config", "--global", "user.email"])).toBe("spare-claim@example.com");
    expect((await json<WorkspaceSummary[]>(user, "/api/workspaces")).body.map((w) => w.id)).toContain(spare.id);
    // Claimed once: asking again starts another spare, not this workspace.
    const next = await json<SpareWorkspace>(user, "/api/workspaces/spare", { method: "POST" });
    expect(next.body.id).not.toBe(spare.id);
    await json(user, `/api/workspaces/${next.body.id}/test-hooks/spare/expire`, { method: "POST" });
    expect((await api(`/api/workspaces/${spare.id}`, { method: "DELETE", headers: user })).status).toBe(204);
  });

  it("takes the template asked for: an empty workspace from a spare is empty", async () => {
    const user = await accessUser("spare-empty@example.com");
    const spare = await runningSpare(user);
    const workspace = await create(user, { name: "empty from a spare", template: "empty", spare: spare.id });
    expect(workspace.id).toBe(spare.id);
    expect(dockerExec(spare.container, ["ls", "-A", "/workspace"])).toBe("");
    expect((await api(`/api/workspaces/${spare.id}`, { method: "DELETE", headers: user })).status).toBe(204);
  });

  it("is its owner's alone: another user naming it gets a workspace of their own, and cannot reach it", async () => {
    const owner = await accessUser("spare-owner@example.com");
    const other = await accessUser("spare-other@example.com");
    const spare = await runningSpare(owner);
    expect((await json(other, `/api/workspaces/${spare.id}/status?wake=0`)).status).toBe(404);
    const theirs = await create(other, { name: "not a spare", spare: spare.id });
    expect(theirs.id).not.toBe(spare.id);
    // The owner's spare is still theirs to claim.
    expect((await create(owner, { name: "mine", spare: spare.id })).id).toBe(spare.id);
    for (const [user, id] of [
      [owner, spare.id],
      [other, theirs.id],
    ] as const) {
      expect((await api(`/api/workspaces/${id}`, { method: "DELETE", headers: user })).status).toBe(204);
    }
  });

  it("goes, unsaved, when nobody claims it in time; the next workspace is a new one", async () => {
    const user = await accessUser("spare-expiry@example.com");
    const spare = await runningSpare(user);
    // Due in a second instead of minutes: its own alarm discards it (worker/lifecycle/workspace-record.ts, expireSpare).
    const due = await json<{ due: boolean }>(user, `/api/workspaces/${spare.id}/test-hooks/spare/due`, {
      method: "POST",
      body: JSON.stringify({ inMs: 1000 }),
    });
    expect(due.body).toEqual({ due: true });
    // Destroyed, not saved: the object holds nothing, so it is no workspace of anyone's.
    await waitFor("the spare's alarm to discard it", async () =>
      (await json(user, `/api/workspaces/${spare.id}/status?wake=0`)).status === 404 ? true : undefined,
    );
    await waitFor("the spare's container to go", async () =>
      runContainers().includes(spare.container) ? undefined : true,
    );
    const workspace = await create(user, { name: "after the spare went", spare: spare.id });
    expect(workspace.id).not.toBe(spare.id);
    expect((await api(`/api/workspaces/${workspace.id}`, { method: "DELETE", headers: user })).status).toBe(204);
  });

  it("refuses a spare that is no workspace id, and guests", async () => {
    const user = await accessUser("spare-input@example.com");
    const bad = await json<{ code: string }>(user, "/api/workspaces", {
      method: "POST",
      body: JSON.stringify({ name: "x", spare: "../etc" }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("INVALID_WORKSPACE_ID");
    // A guest uses the one workspace they were invited to, and makes none: no spare either.
    const invited = await createWorkspace("spare guest's");
    const guest = await joinAsGuest(
      (await createInvite(invited, { role: "editor", ttlSeconds: 600, uses: 1 })).url,
      "G",
    );
    const refused = await json<{ code: string }>(guest, "/api/workspaces/spare", { method: "POST" });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("FORBIDDEN");
    expect((await ownerApi(`/api/workspaces/${invited}`, { method: "DELETE" })).status).toBe(204);
  });

  it("is shared by two pages asking at once: one spare, one container", async () => {
    const user = await accessUser("spare-twice@example.com");
    const before = new Set(runContainers());
    const answers = await Promise.all(
      [0, 1].map(() => json<SpareWorkspace>(user, "/api/workspaces/spare", { method: "POST" })),
    );
    expect(answers[0]?.body.id).toBe(answers[1]?.body.id);
    const id = answers[0]?.body.id as string;
    await untilRunning(user, id);
    const started = runContainers().filter((name) => !before.has(name));
    for (const name of started) made.add(name);
    expect(started).toHaveLength(1);
    await json(user, `/api/workspaces/${id}/test-hooks/spare/expire`, { method: "POST" });
  });
});
