/**
 * Who may touch a workspace's backups (issue 42, finding 2). A backup holds
 * /root (shell history, tokens, dotfiles) and the past, so every backup route
 * is the owner's: a member (viewer or editor, named by the test hook or a
 * guest by an invite link) gets 403 FORBIDDEN, anyone else 404 NOT_FOUND (as
 * if the workspace did not exist), nobody signed in 401; and none of them
 * changes or reads anything. The owner's own calls then all work. The move
 * to the current image stays an editor's (it reads no backup but its own).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { BackupList, BackupRecord } from "../../protocol/backups";
import { api } from "../support/api";
import { createInvite, joinAsGuest } from "../support/guests";
import { post, removeWhatWeMade, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";
import { accessUser } from "../support/users";

afterAll(removeWhatWeMade);

let id: string;
let kept: BackupRecord;

async function grant(user: string, role: "viewer" | "editor"): Promise<void> {
  const response = await ownerApi(`/api/workspaces/${id}/test-hooks/members`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user, role }),
  });
  expect(response.status).toBe(204);
}

async function backups(): Promise<BackupRecord[]> {
  const response = await ownerApi(`/api/workspaces/${id}/backups`);
  expect(response.status).toBe(200);
  return ((await response.json()) as BackupList).backups;
}

/** Every backup route, as a request on the backup `backupId`. */
function backupRoutes(backupId: string): { name: string; path: string; init: RequestInit }[] {
  const base = `/api/workspaces/${id}/backups`;
  const json = { "Content-Type": "application/json" };
  return [
    { name: "list", path: base, init: { method: "GET" } },
    { name: "create", path: base, init: { method: "POST" } },
    { name: "download .tar.gz", path: `${base}/${backupId}/download`, init: { method: "GET" } },
    { name: "download as stored", path: `${base}/${backupId}/download?format=zst`, init: { method: "GET" } },
    { name: "restore", path: `${base}/${backupId}/restore`, init: { method: "POST" } },
    {
      name: "pin",
      path: `${base}/${backupId}/pin`,
      init: { method: "POST", headers: json, body: JSON.stringify({ pinned: true }) },
    },
    { name: "delete", path: `${base}/${backupId}`, init: { method: "DELETE" } },
  ];
}

beforeAll(async () => {
  id = await createWorkspace("backup roles", "empty");
  await wake(id);
  const made = await post<BackupRecord>(`/api/workspaces/${id}/backups`);
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  kept = made.body;
  await grant("viewer-backups@example.com", "viewer");
  await grant("editor-backups@example.com", "editor");
});

describe("a workspace's backups", () => {
  it("refuse every member and every stranger on every route, and nothing changes", async () => {
    const viewerGuest = await joinAsGuest((await createInvite(id, { role: "viewer", ttlSeconds: 600 })).url, "Vi");
    const editorGuest = await joinAsGuest((await createInvite(id, { role: "editor", ttlSeconds: 600 })).url, "Ed");
    const callers: { who: string; headers: Record<string, string>; status: number; code: string }[] = [
      { who: "viewer", headers: await accessUser("viewer-backups@example.com"), status: 403, code: "FORBIDDEN" },
      { who: "editor", headers: await accessUser("editor-backups@example.com"), status: 403, code: "FORBIDDEN" },
      { who: "viewer guest (invite link)", headers: viewerGuest, status: 403, code: "FORBIDDEN" },
      { who: "editor guest (invite link)", headers: editorGuest, status: 403, code: "FORBIDDEN" },
      {
        who: "another user",
        headers: await accessUser("stranger-backups@example.com"),
        status: 404,
        code: "NOT_FOUND",
      },
    ];
    const before = await backups();
    for (const { who, headers, status, code } of callers) {
      for (const route of backupRoutes(kept.id)) {
        const response = await api(route.path, {
          ...route.init,
          headers: { ...headers, ...(route.init.headers as Record<string, string>) },
        });
        const body = await response.text();
        expect(response.status, `${route.name} as ${who}: ${body.slice(0, 200)}`).toBe(status);
        expect(JSON.parse(body), `${route.name} as ${who}`).toMatchObject({ code });
      }
    }
    // Nobody signed in (a preview's share link signs nobody in to the IDE) gets nothing either.
    for (const route of backupRoutes(kept.id)) {
      const response = await api(route.path, {
        ...route.init,
        headers: { Origin: inject("baseUrl"), ...(route.init.headers as Record<string, string>) },
      });
      expect(response.status, `${route.name} signed out`).toBe(401);
    }
    // Nothing was made, pinned, restored or deleted.
    expect(await backups()).toEqual(before);
  });

  it("leave the move to the current image to an editor, not a viewer", async () => {
    const viewer = await api(`/api/workspaces/${id}/upgrade`, {
      method: "POST",
      headers: await accessUser("viewer-backups@example.com"),
    });
    expect(viewer.status).toBe(403);
    // The editor passes the door: the workspace already runs the current image.
    const editor = await api(`/api/workspaces/${id}/upgrade`, {
      method: "POST",
      headers: await accessUser("editor-backups@example.com"),
    });
    expect(editor.status, await editor.clone().text()).toBe(409);
    expect(await editor.json()).toMatchObject({ code: "INVALID_STATE" });
  });

  it("answer the owner on every route", async () => {
    // One at a time: a restore and a new backup each hold the workspace's files.
    const expected: Record<string, number> = {
      list: 200,
      create: 201,
      "download .tar.gz": 200,
      "download as stored": 200,
      restore: 200,
      pin: 200,
      delete: 204,
    };
    for (const route of backupRoutes(kept.id)) {
      const response = await ownerApi(route.path, route.init);
      const body = new Uint8Array(await response.arrayBuffer());
      expect(response.status, `${route.name}: ${new TextDecoder().decode(body.slice(0, 200))}`).toBe(
        expected[route.name],
      );
      if (route.name === "download as stored") expect(body.byteLength).toBe(kept.size);
      if (route.name === "download .tar.gz") expect(body.byteLength).toBeGreaterThan(0);
    }
    expect((await backups()).map((b) => b.id)).not.toContain(kept.id);
  });
});
