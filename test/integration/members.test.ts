/**
 * Members, roles and invite links (issue 24), end to end against a real
 * workspace: an invite signs a visitor in as a guest of that one workspace;
 * an expired, revoked or used-up link signs nobody in; a viewer watches a
 * terminal and cannot type in it; removing a member or revoking their link
 * closes their sockets and event streams at once; with Cloudflare Access,
 * the owner adds people by email. (Every route above a viewer's role answers
 * a guest viewer 403: test/integration/roles.test.ts walks the served table.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InviteInfo, InviteList, MemberList } from "../../protocol/members";
import type { SessionInfo } from "../../protocol/session";
import type { WorkspaceSummary } from "../../protocol/workspaces";
import { api } from "../support/api";
import { acceptInvite, createInvite, inviteParts, joinAsGuest } from "../support/guests";
import { removeWhatWeMade, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";
import { openTerminalSocket } from "../support/terminal-client";
import { accessUser } from "../support/users";

let id: string;
let other: string;

beforeAll(async () => {
  id = await createWorkspace("shared", "empty");
  other = await createWorkspace("private", "empty");
  await wake(id);
}, 180_000);

afterAll(() => removeWhatWeMade());

const json = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { ...headers, "Content-Type": "application/json" },
  body: JSON.stringify(body),
});

async function members(): Promise<MemberList["members"]> {
  const response = await ownerApi(`/api/workspaces/${id}/members`);
  expect(response.status).toBe(200);
  return ((await response.json()) as MemberList).members;
}

describe("an invite link", () => {
  it("signs a visitor in as a named guest who can list and reach that one workspace only", async () => {
    const invite = await createInvite(id, { role: "editor", ttlSeconds: 3600, uses: 1 });
    expect(invite).toMatchObject({ role: "editor", url: expect.stringContaining(`/join/${id}#`) });
    const check = await api(
      "/api/invites/check",
      json("POST", inviteParts(invite.url), { Origin: new URL(invite.url).origin }),
    );
    expect(check.status).toBe(200);
    expect((await check.json()) as InviteInfo).toMatchObject({ workspaceName: "shared", role: "editor" });

    const guest = await joinAsGuest(invite.url, "Ada Lovelace");
    const session = (await (await api("/api/session", { headers: guest })).json()) as SessionInfo;
    expect(session.user).toMatchObject({ via: "guest", name: "Ada Lovelace", workspace: id });
    // Their list: that workspace, marked as shared, and nothing else.
    const list = (await (await api("/api/workspaces", { headers: guest })).json()) as WorkspaceSummary[];
    expect(list).toEqual([expect.objectContaining({ id, name: "shared", shared: { owner: "owner", role: "editor" } })]);
    expect((await api(`/api/workspaces/${id}/status`, { headers: guest })).status).toBe(200);
    expect(await (await api(`/api/workspaces/${id}/me`, { headers: guest })).json()).toEqual({
      role: "editor",
      shared: true,
    });
    // Another workspace of the same owner does not exist for them, and they make none.
    const elsewhere = await api(`/api/workspaces/${other}/status`, { headers: guest });
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ code: "NOT_FOUND" });
    const make = await api("/api/workspaces", json("POST", { name: "mine", template: "empty" }, guest));
    expect(make.status).toBe(403);
    expect(await make.json()).toMatchObject({ code: "FORBIDDEN" });
    // An editor changes files.
    const put = await api(`/api/workspaces/${id}/files/content?path=by-ada.txt`, {
      method: "PUT",
      headers: guest,
      body: "hello from Ada",
    });
    expect(put.status).toBe(200);
    // The owner sees them, and the link's use.
    expect(await members()).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "Ada Lovelace", role: "editor", kind: "guest" })]),
    );
    const invites = (await (await ownerApi(`/api/workspaces/${id}/invites`)).json()) as InviteList;
    expect(invites.invites.find((i) => i.id === invite.id)).toMatchObject({ uses: 1, used: 1 });
  });

  it("signs nobody in once used up, revoked or expired, and says which", async () => {
    const single = await createInvite(id, { role: "viewer", ttlSeconds: 600, uses: 1 });
    await joinAsGuest(single.url, "First");
    const revoked = await createInvite(id, { role: "viewer", ttlSeconds: 600 });
    expect((await ownerApi(`/api/workspaces/${id}/invites/${revoked.id}`, { method: "DELETE" })).status).toBe(204);
    const expired = await createInvite(id, { role: "editor", ttlSeconds: 600 });
    const expire = await ownerApi(`/api/workspaces/${id}/test-hooks/invites/${expired.id}/expire`, { method: "POST" });
    expect(expire.status).toBe(204);
    const forged = `${single.url.split("#")[0]}#${inviteParts(single.url).token.replace(/.$/, (c) => (c === "a" ? "b" : "a"))}`;
    for (const [url, words] of [
      [single.url, /used as many times/],
      [revoked.url, /revoked/],
      [expired.url, /expired at/],
      [forged, /not valid/],
    ] as const) {
      const before = (await members()).length;
      const response = await acceptInvite(url, "Mallory");
      expect(response.status, url).toBe(410);
      expect(response.headers.get("set-cookie"), url).toBeNull();
      expect(await response.json(), url).toMatchObject({
        code: "INVITE_UNUSABLE",
        message: expect.stringMatching(words),
      });
      const check = await api("/api/invites/check", json("POST", inviteParts(url), { Origin: new URL(url).origin }));
      expect(check.status, url).toBe(410);
      expect(await members(), url).toHaveLength(before);
    }
  });

  it("is the owner's to make: a bad role, lifetime or count is refused with a code", async () => {
    for (const body of [
      { role: "owner", ttlSeconds: 600 },
      { role: "viewer", ttlSeconds: 5 },
      { role: "viewer", ttlSeconds: 600, uses: 0 },
      { role: "viewer" },
    ]) {
      const response = await ownerApi(`/api/workspaces/${id}/invites`, json("POST", body));
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await response.json()).toMatchObject({ code: "INVALID_INVITE" });
    }
    const invite = await createInvite(id, { role: "editor", ttlSeconds: 600 });
    const unnamed = await acceptInvite(invite.url, "   ");
    expect(unnamed.status).toBe(400);
    expect(await unnamed.json()).toMatchObject({ code: "INVALID_DISPLAY_NAME" });
  });
});

describe("a viewer", () => {
  it("watches a terminal: sees its output, and what they type is refused", { timeout: 120_000 }, async () => {
    const invite = await createInvite(id, { role: "viewer", ttlSeconds: 600 });
    const viewer = await joinAsGuest(invite.url, "Vic Viewer");
    const owner = await openTerminalSocket(id, "watched");
    const watching = await openTerminalSocket(id, "watched", { headers: viewer });
    owner.type("echo from-the-$((40+2))-owner\r");
    await watching.waitFor(/from-the-42-owner/);
    watching.type("touch /workspace/typed-by-viewer\r");
    await new Promise<void>((resolve) => {
      const seen = () => watching.messages.some((m) => (m as { type?: string }).type === "read-only");
      if (seen()) return resolve();
      watching.ws.on("message", () => seen() && resolve());
    });
    // Input is dropped where it arrives: after the refusal, the owner's own command shows nothing was made.
    owner.type("ls /workspace/typed-by-viewer 2>&1 | tr a-z A-Z\r");
    await owner.waitFor(/NO SUCH FILE OR DIRECTORY/);
    const stat = await ownerApi(`/api/workspaces/${id}/files/stat?path=typed-by-viewer`);
    expect(stat.status).toBe(404);
    // A terminal nobody opened is not started for a viewer.
    const none = await openTerminalSocket(id, "not-there", { headers: viewer }).then(
      () => "opened",
      (error: Error) => error.message,
    );
    expect(none).toMatch(/closed before ready/);
    owner.ws.close();
    watching.ws.close();
  });
});

describe("taking a member out", () => {
  it("closes their terminals and event streams at once, and signs a guest out", { timeout: 120_000 }, async () => {
    const byMember = await createInvite(id, { role: "editor", ttlSeconds: 600, uses: 1 });
    const removed = await joinAsGuest(byMember.url, "Removed Rita");
    const byLink = await createInvite(id, { role: "viewer", ttlSeconds: 600, uses: 5 });
    const revoked = await joinAsGuest(byLink.url, "Revoked Rob");
    const rita = (await members()).find((m) => m.name === "Removed Rita");
    expect(rita).toBeDefined();

    const ritaTerminal = await openTerminalSocket(id, "rita", { headers: removed });
    const ritaWatch = await api(`/api/workspaces/${id}/files/watch`, { headers: removed });
    expect(ritaWatch.status).toBe(200);
    const ritaEvents = (ritaWatch.body as ReadableStream<Uint8Array>).getReader();
    await ritaEvents.read();
    const robTerminal = await openTerminalSocket(id, "rita", { headers: revoked });

    const started = Date.now();
    const removal = await ownerApi(`/api/workspaces/${id}/members/${encodeURIComponent(rita?.id ?? "")}`, {
      method: "DELETE",
    });
    expect(removal.status).toBe(204);
    const answered = Date.now() - started;
    expect(await ritaTerminal.closed).toMatchObject({ code: 1008, reason: expect.stringMatching(/removed/) });
    const closed = Date.now() - started;
    // The stream ends (the reads after it say done).
    for (let next = await ritaEvents.read(); !next.done; next = await ritaEvents.read()) {}
    console.log(
      `members: after a removal was sent: answered ${answered} ms, terminal closed ${closed} ms, events ended ${Date.now() - started} ms`,
    );
    expect((await api(`/api/workspaces/${id}/status`, { headers: removed })).status).toBe(401);

    // Revoking the link they came by does the same for everyone who came by it.
    expect((await ownerApi(`/api/workspaces/${id}/invites/${byLink.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await robTerminal.closed).toMatchObject({ code: 1008, reason: expect.stringMatching(/revoked/) });
    expect((await api("/api/workspaces", { headers: revoked })).status).toBe(401);
    const names = (await members()).map((m) => m.name);
    expect(names).not.toContain("Removed Rita");
    expect(names).not.toContain("Revoked Rob");
  });
});

describe("with Cloudflare Access", () => {
  it("the owner adds a user by email, changes their role, and removes them", async () => {
    const email = "member-by-email@example.com";
    const added = await ownerApi(`/api/workspaces/${id}/members/${email}`, json("PUT", { role: "viewer" }));
    expect(added.status).toBe(201);
    expect(await added.json()).toMatchObject({ id: email, role: "viewer", kind: "access" });
    const list = async () =>
      (await (await api("/api/workspaces", { headers: await accessUser(email) })).json()) as WorkspaceSummary[];
    expect((await list()).find((w) => w.id === id)).toMatchObject({ shared: { role: "viewer" } });
    const refused = await api(`/api/workspaces/${id}/files/content?path=x.txt`, {
      method: "PUT",
      headers: await accessUser(email),
      body: "no",
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: "FORBIDDEN" });

    const changed = await ownerApi(`/api/workspaces/${id}/members/${email}`, json("PUT", { role: "editor" }));
    expect(changed.status).toBe(200);
    expect((await list()).find((w) => w.id === id)).toMatchObject({ shared: { role: "editor" } });

    expect((await ownerApi(`/api/workspaces/${id}/members/${email}`, { method: "DELETE" })).status).toBe(204);
    expect((await list()).find((w) => w.id === id)).toBeUndefined();
    expect((await api(`/api/workspaces/${id}/status`, { headers: await accessUser(email) })).status).toBe(404);
    // Not an email, and no member: nothing to change.
    const unknown = await ownerApi(`/api/workspaces/${id}/members/nobody`, json("PUT", { role: "viewer" }));
    expect(unknown.status).toBe(404);
  });

  it("an Access user who opens an invite link joins as themselves", async () => {
    const email = "joins-by-link@example.com";
    const invite = await createInvite(id, { role: "viewer", ttlSeconds: 600 });
    const response = await acceptInvite(invite.url, "ignored", await accessUser(email));
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(await response.json()).toEqual({ workspace: id, role: "viewer" });
    expect((await members()).find((m) => m.id === email)).toMatchObject({ kind: "access", role: "viewer" });
  });
});
