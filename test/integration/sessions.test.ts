import { describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import type { SessionList } from "../../protocol/session";
import { signSession } from "../../worker/auth/session-token";
import { api } from "../support/api";
import { createWorkspace, ownerSessionEnded } from "../support/session";
import { accessToken, accessUser } from "../support/users";

const origin = () => inject("baseUrl");

/** Signs the owner in from a "device" of its own and returns its cookie. */
async function signIn(userAgent: string): Promise<string> {
  const response = await api("/api/session", {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: origin(), "User-Agent": userAgent },
    body: JSON.stringify({ password: inject("password") }),
  });
  expect(response.status).toBe(204);
  return (response.headers.get("set-cookie") ?? "").split(";")[0] as string;
}

const withCookie = (cookie: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), Cookie: cookie, Origin: origin() },
});

async function sessions(headers: RequestInit): Promise<SessionList["sessions"]> {
  const response = await api("/api/sessions", headers);
  expect(response.status).toBe(200);
  return ((await response.json()) as SessionList).sessions;
}

const status = async (path: string, init: RequestInit) => (await api(path, init)).status;

describe("sessions that end", () => {
  it("signing out ends the session on the server: its cookie no longer works anywhere", async () => {
    const a = await signIn("device A");
    const b = await signIn("device B");
    const listed = await sessions(withCookie(a));
    const mine = listed.find((s) => s.current);
    const other = listed.find((s) => s.userAgent === "device B");
    expect(mine).toMatchObject({ via: "password", userAgent: "device A", current: true });
    expect(other).toMatchObject({ via: "password", current: false });
    expect(Math.abs((mine?.createdAt ?? 0) - Date.now())).toBeLessThan(60_000);
    expect(mine?.lastUsedAt).toBeGreaterThanOrEqual(mine?.createdAt ?? Infinity);
    // Seven days from sign-in, as the cookie's Max-Age says.
    expect((mine?.expiresAt ?? 0) - (mine?.createdAt ?? 0)).toBe(7 * 24 * 3600 * 1000);

    const out = await api("/api/session", withCookie(a, { method: "DELETE" }));
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/i);
    // The cookie from before sign-out, sent again (the audit kept using it for 7 days): refused.
    expect(await status("/api/workspaces", withCookie(a))).toBe(401);
    expect(await status("/api/session", withCookie(a))).toBe(401);
    expect(await status("/api/sessions", withCookie(a))).toBe(401);
    // The other device is still signed in, and no longer sees the ended session.
    expect(await status("/api/workspaces", withCookie(b))).toBe(200);
    expect((await sessions(withCookie(b))).some((s) => s.id === mine?.id)).toBe(false);
  });

  it("ends one session from the list; another user cannot end it", async () => {
    const b = await signIn("device B");
    const c = await signIn("device C");
    const target = (await sessions(withCookie(c))).find((s) => s.current);
    expect(target).toBeTruthy();
    const mallory = await accessUser("mallory@example.com");
    expect(await status(`/api/sessions/${target?.id}`, { method: "DELETE", headers: mallory })).toBe(404);
    expect(await status("/api/workspaces", withCookie(c))).toBe(200);
    // Ending it needs the IDE's own origin, like every change.
    expect(await status(`/api/sessions/${target?.id}`, { method: "DELETE", headers: { Cookie: b } })).toBe(403);
    expect(await status(`/api/sessions/${target?.id}`, withCookie(b, { method: "DELETE" }))).toBe(204);
    expect(await status("/api/workspaces", withCookie(c))).toBe(401);
    expect(await status(`/api/sessions/${target?.id}`, withCookie(b, { method: "DELETE" }))).toBe(404);
  });

  it("refuses a correctly signed cookie that names no live session", async () => {
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const token = await signSession({ sub: "owner", via: "password", sid: "made-up", exp }, inject("sessionSecret"));
    expect(await status("/api/workspaces", withCookie(`cloud_ide_session=${token}`))).toBe(401);
  });

  it("signs out everywhere: every session of the user ends at once", async () => {
    const d = await signIn("device D");
    const e = await signIn("device E");
    expect(await status("/api/sessions", withCookie(d, { method: "DELETE" }))).toBe(204);
    // That ended this file's own owner session too (test/support/session.ts).
    ownerSessionEnded();
    for (const cookie of [d, e]) expect(await status("/api/workspaces", withCookie(cookie))).toBe(401);
    // Signing in again works.
    const f = await signIn("device F");
    expect((await sessions(withCookie(f))).map((s) => s.userAgent)).toEqual(["device F"]);
  });
});

describe("open terminals of a session that ends", () => {
  /** A terminal socket opened with this cookie, resolved once it is ready; `closed` settles with its close code. */
  async function terminal(id: string, cookie: string) {
    const url = new URL(`/ws/workspaces/${id}/terminals/t${Math.random().toString(36).slice(2, 8)}`, origin());
    url.protocol = "ws:";
    const ws = new WebSocket(url, { headers: { Cookie: cookie, Origin: origin() } });
    const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      ws.on("message", (data, isBinary) => {
        if (!isBinary && JSON.parse(data.toString()).type === "ready") resolve();
      });
      ws.on("error", reject);
    });
    return { ws, closed };
  }

  it("are closed when it signs out, and all of them when the user signs out everywhere", async () => {
    const id = await createWorkspace("sockets of sessions");
    const a = await signIn("device A");
    const b = await signIn("device B");
    const fromA = await terminal(id, a);
    const fromB = await terminal(id, b);
    expect(await status("/api/session", withCookie(a, { method: "DELETE" }))).toBe(204);
    expect(await fromA.closed).toBe(1008);
    // B's session is live: its terminal stays open.
    expect(fromB.ws.readyState).toBe(WebSocket.OPEN);
    expect(await status("/api/sessions", withCookie(b, { method: "DELETE" }))).toBe(204);
    // That ended this file's own owner session too (test/support/session.ts).
    ownerSessionEnded();
    expect(await fromB.closed).toBe(1008);
  });

  it("closes a language-server socket when its session signs out", async () => {
    const id = await createWorkspace("lsp socket of a session");
    const a = await signIn("device A");
    const url = new URL(`/ws/workspaces/${id}/lsp/json`, origin());
    url.protocol = "ws:";
    const ws = new WebSocket(url, { headers: { Cookie: a, Origin: origin() } });
    const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      ws.on("open", () => resolve());
      ws.on("error", reject);
    });
    expect(await status("/api/session", withCookie(a, { method: "DELETE" }))).toBe(204);
    expect(await closed).toBe(1008);
  });

  it("ends a file-change stream when its session signs out, and only that session's (issue 19)", async () => {
    const id = await createWorkspace("file stream of a session");
    const a = await signIn("device A");
    const b = await signIn("device B");
    /** The stream opened with this cookie, once its first bytes came; `ended` settles when it ends. */
    const stream = async (cookie: string) => {
      const response = await api(`/api/workspaces/${id}/files/watch`, withCookie(cookie));
      expect(response.status).toBe(200);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      expect((await reader.read()).done).toBe(false);
      let ended = false;
      const done = (async () => {
        try {
          while (!(await reader.read()).done) {}
        } catch {
          // A cut connection ends it too.
        }
        ended = true;
      })();
      return { done, ended: () => ended };
    };
    const fromA = await stream(a);
    const fromB = await stream(b);
    expect(await status("/api/session", withCookie(a, { method: "DELETE" }))).toBe(204);
    await fromA.done;
    expect(fromB.ended()).toBe(false);
    expect(await status(`/api/workspaces/${id}/files/watch`, withCookie(a))).toBe(401);
    expect(await status("/api/session", withCookie(b, { method: "DELETE" }))).toBe(204);
    await fromB.done;
  });
});

describe("Cloudflare Access sessions", () => {
  const as = (token: string, init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { "Cf-Access-Jwt-Assertion": token, Origin: origin(), "User-Agent": "ada's laptop" },
  });

  it("are listed, end on sign-out, and a new Access sign-in starts a new one", async () => {
    const first = await accessToken("ada@example.com");
    expect(await status("/api/session", as(first))).toBe(200);
    const listed = await sessions(as(first));
    expect(listed.find((s) => s.current)).toMatchObject({ via: "access", userAgent: "ada's laptop" });
    expect(await status("/api/session", as(first, { method: "DELETE" }))).toBe(204);
    // The same Access token is refused from now on.
    expect(await status("/api/workspaces", as(first))).toBe(401);
    // Signing in through Access again gives a new token: a new session.
    const again = await accessToken("ada@example.com");
    expect(await status("/api/workspaces", as(again))).toBe(200);
  });

  it("sign out everywhere refuses every token issued before it, used or not", async () => {
    const now = Math.floor(Date.now() / 1000);
    const laptop = await accessToken("grace@example.com", { issuedAt: now - 5 });
    const phone = await accessToken("grace@example.com", { issuedAt: now - 5 });
    const unused = await accessToken("grace@example.com", { issuedAt: now - 5 });
    expect(await status("/api/workspaces", as(laptop))).toBe(200);
    expect(await status("/api/workspaces", as(phone))).toBe(200);
    expect(await status("/api/sessions", as(phone, { method: "DELETE" }))).toBe(204);
    for (const token of [laptop, phone, unused]) expect(await status("/api/workspaces", as(token))).toBe(401);
    const later = await accessToken("grace@example.com", { issuedAt: now + 2 });
    expect(await status("/api/workspaces", as(later))).toBe(200);
  });
});
