/**
 * What the README's security model promises, each checked against the real
 * IDE: file bytes never run as a page, another user reaches nothing on any
 * route, refused WebSocket upgrades are refused for the right reason, and a
 * cross-site request is refused by the Origin check alone.
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../support/api";
import { filesUrl, putFile } from "../support/files";
import { createWorkspace, ownerApi, ownerCookie } from "../support/session";
import { upgradeAnswer as refusal } from "../support/upgrades";
import { accessUser } from "../support/users";

let id: string;

beforeAll(async () => {
  id = await createWorkspace("promises");
  expect((await putFile(id, "page.html", "<script>document.title='ran'</script><h1>hi</h1>")).status).toBe(200);
});

describe("file bytes", () => {
  it("are application/octet-stream with CSP sandbox and nosniff, never an IDE page", async () => {
    for (const path of [
      filesUrl(id, "/content", { path: "page.html" }),
      filesUrl(id, "/download", { path: "page.html" }),
    ]) {
      const response = await ownerApi(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/octet-stream");
      expect(response.headers.get("content-security-policy")).toBe("sandbox");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(await response.text()).toContain("<script>");
    }
  });
});

describe("another user", () => {
  it("gets 404 NOT_FOUND from every route of the owner's workspace, and changes nothing", async () => {
    const mallory = await accessUser("mallory-routes@example.com");
    const json = { "Content-Type": "application/json" };
    const routes: [string, string, RequestInit?][] = [
      ["GET", "/status"],
      ["POST", "/wake"],
      ["PATCH", "", { headers: json, body: JSON.stringify({ name: "mine" }) }],
      ["DELETE", ""],
      ["GET", "/files?path=."],
      ["GET", "/files/stat?path=page.html"],
      ["GET", "/files/content?path=page.html"],
      ["PUT", "/files/content?path=x.txt", { body: "x" }],
      ["DELETE", "/files?path=page.html"],
      ["POST", "/files/mkdir?path=d"],
      ["POST", "/files/move", { headers: json, body: JSON.stringify({ from: "page.html", to: "p.html" }) }],
      ["PUT", "/files/upload?path=u.txt&upload=mallory123&offset=0&final=1", { body: "u" }],
      ["DELETE", "/files/upload?path=u.txt&upload=mallory123"],
      ["GET", "/files/download?path=."],
      ["GET", "/files/watch"],
      ["GET", "/export"],
      ["POST", "/import", { body: "not an archive" }],
      ["POST", "/save"],
      ["POST", "/stop"],
      ["POST", "/reset"],
      ["GET", "/terminals"],
      ["DELETE", "/terminals/main"],
      ["GET", "/previews"],
      ["POST", "/previews/dev-server"],
      ["DELETE", "/previews/dev-server"],
      ["POST", "/previews/5173"],
      ["GET", "/previews/5173/shares"],
      ["POST", "/previews/5173/shares", { headers: json, body: JSON.stringify({ ttlSeconds: 300 }) }],
      ["DELETE", "/previews/5173/shares/abcdefabcdef"],
      ["GET", "/git/status"],
      ["GET", "/git/diff?path=page.html"],
      ["POST", "/git/init"],
      ["POST", "/git/stage", { headers: json, body: JSON.stringify({ paths: ["page.html"] }) }],
      ["POST", "/git/commit", { headers: json, body: JSON.stringify({ message: "mine" }) }],
      ["POST", "/git/push"],
    ];
    for (const [method, suffix, init = {}] of routes) {
      const response = await api(`/api/workspaces/${id}${suffix}`, {
        ...init,
        method,
        headers: { ...(init.headers as Record<string, string>), ...mallory },
      });
      expect(response.status, `${method} ${suffix}`).toBe(404);
      expect(await response.json(), `${method} ${suffix}`).toMatchObject({ code: "NOT_FOUND" });
    }
    // The owner's workspace is as it was.
    const page = await ownerApi(filesUrl(id, "/content", { path: "page.html" }));
    expect(page.status).toBe(200);
    const files = (
      (await (await ownerApi(filesUrl(id, "", { path: "." }))).json()) as { entries: { name: string }[] }
    ).entries.map((e) => e.name);
    expect(files).not.toContain("x.txt");
    expect(files).not.toContain("d");
    expect(files).not.toContain(".git");
  });
});

describe("refused WebSocket upgrades", () => {
  it("are refused for the right reason: no session 401, a foreign Origin 403, another user 404", async () => {
    const origin = inject("baseUrl");
    const cookie = await ownerCookie();
    const unique = () => `t${Math.random().toString(36).slice(2, 10)}`;
    expect(await refusal(`/ws/workspaces/${id}/terminals/${unique()}`, { Origin: origin })).toBe(401);
    expect(
      await refusal(`/ws/workspaces/${id}/terminals/${unique()}`, { Origin: "https://evil.example", Cookie: cookie }),
    ).toBe(403);
    const mallory = await accessUser("mallory-sockets@example.com");
    expect(await refusal(`/ws/workspaces/${id}/terminals/${unique()}`, mallory)).toBe(404);
    // And the owner's own upgrade, the same way, opens.
    expect(await refusal(`/ws/workspaces/${id}/terminals/${unique()}`, { Origin: origin, Cookie: cookie })).toBe(101);
  });
});

describe("cross-site requests", () => {
  it("a JSON POST the API would accept is refused by the Origin check alone", async () => {
    const body = JSON.stringify({ ttlSeconds: 300 });
    const headers = { "Content-Type": "application/json" };
    const preview = `http://5173-${id}-${"a".repeat(24)}.localhost:${inject("port")}`;
    for (const origin of ["https://evil.example", preview]) {
      const refused = await ownerApi(`/api/workspaces/${id}/previews/5173/shares`, {
        method: "POST",
        headers: { ...headers, Origin: origin },
        body,
      });
      expect(refused.status, origin).toBe(403);
      expect(await refused.json()).toMatchObject({ code: "FORBIDDEN_ORIGIN" });
    }
    // The very same request from the IDE's own origin is accepted: only the Origin differed.
    const accepted = await ownerApi(`/api/workspaces/${id}/previews/5173/shares`, { method: "POST", headers, body });
    expect(accepted.status).toBe(201);
  });
});

describe("the rest of the promises", () => {
  it("/api/health answers without a session; pages say Referrer-Policy same-origin", async () => {
    const health = await api("/api/health");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const page = await api("/");
    expect(page.headers.get("referrer-policy")).toBe("same-origin");
    expect(page.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    // Over plain http (vite dev) no HSTS; the https side is worker/security-headers.test.ts.
    expect(page.headers.get("strict-transport-security")).toBeNull();
  });
});
