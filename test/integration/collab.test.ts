/**
 * Co-editing's socket against a real workspace (issue 24, worker/collab/):
 * two writers' edits merge in one shared document; a late joiner and a
 * reconnect after everyone left get the current text, unsaved edits
 * included; a viewer reads and shows a cursor but their updates are refused;
 * a bad frame closes the socket with a code that says why; a save writes
 * the shared text; a change on disk from a shell reaches the document as an
 * edit; removing a member closes their socket.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { CollabSaved } from "../../protocol/collab";
import { api } from "../support/api";
import { type CollabClient, openCollab } from "../support/collab-client";
import { filesUrl, putFile, shell, workspaceContainer } from "../support/files";
import { createInvite, joinAsGuest } from "../support/guests";
import { wake } from "../support/lifecycle";
import { createWorkspace, ownerApi, ownerCookie } from "../support/session";
import { upgradeAnswer } from "../support/upgrades";

let id: string;
let editor: Record<string, string>;
let viewer: Record<string, string>;
const open: CollabClient[] = [];

beforeAll(async () => {
  id = await createWorkspace("collab", "empty");
  await wake(id);
  editor = await joinAsGuest((await createInvite(id, { role: "editor", ttlSeconds: 600 })).url, "Eddie Editor");
  viewer = await joinAsGuest((await createInvite(id, { role: "viewer", ttlSeconds: 600 })).url, "Vera Viewer");
}, 180_000);

// The workspace's DELETE (test/support/cleanup.ts) destroys its container. Not `docker rm -f` first: a container
// killed under the file watcher's live request (the documents keep it running) left that DELETE waiting 5 minutes.
afterAll(async () => {
  for (const client of open) client.close();
  await Promise.all(open.map((client) => client.closed));
});

async function connect(path: string, headers?: Record<string, string>): Promise<CollabClient> {
  const client = await openCollab(id, path, headers);
  open.push(client);
  return client;
}

async function disk(path: string): Promise<string> {
  return (await ownerApi(filesUrl(id, "/content", { path }))).text();
}

describe("a shared document", () => {
  it("starts from the file, merges two writers' edits and gives a late joiner the current text", async () => {
    expect((await putFile(id, "shared/two.txt", "hello\n")).status).toBe(200);
    const owner = await connect("shared/two.txt");
    expect(owner.text.toString()).toBe("hello\n");
    const guest = await connect("shared/two.txt", editor);
    expect(guest.text.toString()).toBe("hello\n");
    owner.text.insert(0, "owner: ");
    guest.text.insert(guest.text.length, "guest\n");
    const both = "owner: hello\nguest\n";
    await owner.until(() => owner.text.toString() === both, "the guest's edit at the owner");
    await guest.until(() => guest.text.toString() === both, "the owner's edit at the guest");
    const late = await connect("shared/two.txt");
    expect(late.text.toString()).toBe(both);
    // Nothing was saved: the disk still has the file as it was.
    expect(await disk("shared/two.txt")).toBe("hello\n");
  });

  it("keeps unsaved edits after everyone left: the next one to open it gets them at once", async () => {
    expect((await putFile(id, "shared/kept.txt", "base\n")).status).toBe(200);
    const first = await connect("shared/kept.txt");
    first.text.insert(0, "unsaved ");
    const second = await connect("shared/kept.txt");
    await second.until(() => second.text.toString() === "unsaved base\n", "the edit at the second client");
    first.close();
    second.close();
    await first.closed;
    await second.closed;
    const again = await connect("shared/kept.txt");
    expect(again.text.toString()).toBe("unsaved base\n");
  });

  it("lets a viewer read and show a cursor, and refuses their updates", async () => {
    expect((await putFile(id, "shared/read-only.txt", "read me\n")).status).toBe(200);
    const owner = await connect("shared/read-only.txt");
    const watcher = await connect("shared/read-only.txt", viewer);
    expect(watcher.text.toString()).toBe("read me\n");
    // Their cursor reaches others, under their own name whatever they claim.
    watcher.announce({ user: { name: "The Owner" }, cursor: { anchor: 1, head: 1 } });
    await owner.until(
      () =>
        (owner.awareness.getStates().get(watcher.doc.clientID) as { user?: { name: string } })?.user?.name ===
        "Vera Viewer",
      "the viewer's awareness at the owner",
    );
    watcher.text.insert(0, "vandal ");
    await watcher.until(() => watcher.denied.length > 0, "the refusal");
    expect(watcher.denied[0]).toMatch(/Viewers cannot change/);
    const check = await connect("shared/read-only.txt");
    expect(check.text.toString()).toBe("read me\n");
    expect(owner.text.toString()).toBe("read me\n");
    // And a viewer cannot save it.
    const save = await api(`/api/workspaces/${id}/collab/save?path=shared/read-only.txt`, {
      method: "POST",
      headers: viewer,
    });
    expect(save.status).toBe(403);
  });

  it("closes the socket on a bad frame with a code that says why, and serves the next one", async () => {
    expect((await putFile(id, "shared/frames.txt", "frames\n")).status).toBe(200);
    const garbage = await connect("shared/frames.txt");
    garbage.ws.send(new Uint8Array([9, 9, 9]));
    expect(await garbage.closed).toMatchObject({ code: 1007, reason: expect.stringMatching(/Unknown message type 9/) });
    const text = await connect("shared/frames.txt");
    text.ws.send("not binary");
    expect(await text.closed).toMatchObject({ code: 1003 });
    const fine = await connect("shared/frames.txt");
    expect(fine.text.toString()).toBe("frames\n");
  });

  it("refuses a path outside the workspace", async () => {
    const headers = { Origin: inject("baseUrl"), Cookie: await ownerCookie() };
    expect(await upgradeAnswer(`/ws/workspaces/${id}/collab/file?path=../etc/passwd`, headers)).toBe(400);
  });
});

describe("the disk and a shared document", () => {
  it("a save writes the shared text; a change from a shell reaches the document as an edit", async () => {
    expect((await putFile(id, "shared/disk.txt", "line one\n")).status).toBe(200);
    const owner = await connect("shared/disk.txt");
    const guest = await connect("shared/disk.txt", editor);
    guest.text.insert(guest.text.length, "line two\n");
    await owner.until(() => owner.text.toString() === "line one\nline two\n", "the guest's line");
    const save = await ownerApi(`/api/workspaces/${id}/collab/save?path=shared/disk.txt`, { method: "POST" });
    expect(save.status).toBe(200);
    const saved = (await save.json()) as CollabSaved;
    expect(saved).toMatchObject({ text: "line one\nline two\n", file: { path: "shared/disk.txt" } });
    expect(await disk("shared/disk.txt")).toBe("line one\nline two\n");

    // While the guest has an unsaved edit at the top, a shell appends a line: both are kept.
    guest.text.insert(0, "# top\n");
    await owner.until(() => owner.text.toString().startsWith("# top\n"), "the guest's unsaved edit");
    shell(await workspaceContainer(id), "echo 'line three' >> /workspace/shared/disk.txt");
    const merged = "# top\nline one\nline two\nline three\n";
    await owner.until(() => owner.text.toString() === merged, "the shell's line at the owner");
    await guest.until(() => guest.text.toString() === merged, "the shell's line at the guest");
    // Saved again, the disk has both.
    expect((await ownerApi(`/api/workspaces/${id}/collab/save?path=shared/disk.txt`, { method: "POST" })).status).toBe(
      200,
    );
    expect(await disk("shared/disk.txt")).toBe(merged);
  });
});

describe("a save on the socket", () => {
  it("writes the shared text with the edits sent just before it, and refuses a viewer's", async () => {
    expect((await putFile(id, "shared/socket.txt", "one\n")).status).toBe(200);
    const owner = await connect("shared/socket.txt");
    const guest = await connect("shared/socket.txt", editor);
    // Sent right before the save, on the same socket: the save has it without waiting for it.
    guest.text.insert(guest.text.length, "two\n");
    const answer = (await guest.save()) as { saved: CollabSaved };
    expect(answer.saved).toMatchObject({ text: "one\ntwo\n", file: { path: "shared/socket.txt" } });
    expect(await disk("shared/socket.txt")).toBe("one\ntwo\n");
    // Its etag is the file's (what a page sends as If-Match next).
    const stat = await ownerApi(filesUrl(id, "/stat", { path: "shared/socket.txt" }));
    expect(stat.headers.get("ETag")).toBe(answer.saved.file.etag);
    await owner.until(() => owner.text.toString() === "one\ntwo\n", "the guest's line at the owner");

    const watcher = await connect("shared/socket.txt", viewer);
    owner.text.insert(0, "unsaved ");
    await watcher.until(() => watcher.text.toString().startsWith("unsaved "), "the owner's edit at the viewer");
    expect(await watcher.save()).toEqual({ error: { code: "FORBIDDEN", message: expect.any(String) } });
    expect(await disk("shared/socket.txt")).toBe("one\ntwo\n");
  });
});

describe("a member taken out", () => {
  it("loses their shared-document socket at once", async () => {
    expect((await putFile(id, "shared/members.txt", "x\n")).status).toBe(200);
    const invite = await createInvite(id, { role: "editor", ttlSeconds: 600 });
    const guest = await connect("shared/members.txt", await joinAsGuest(invite.url, "Leaving Soon"));
    const revoked = await ownerApi(`/api/workspaces/${id}/invites/${invite.id}`, { method: "DELETE" });
    expect(revoked.status).toBe(204);
    expect(await guest.closed).toMatchObject({ code: 1008 });
  });
});
