import { execFile, execFileSync } from "node:child_process";
import { describe, expect, inject, it } from "vitest";
import { signSession } from "../../worker/auth/session-token";
import { api } from "../support/api";
import { runContainers } from "../support/containers";
import { createWorkspace, ownerApi, ownerCookie } from "../support/session";
import { upgradeAnswer } from "../support/upgrades";
import { accessToken, accessUser } from "../support/users";

const origin = () => inject("baseUrl");
const json = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { "Content-Type": "application/json", Origin: origin(), ...headers },
  body: typeof body === "string" ? body : JSON.stringify(body),
});

/** A session cookie signed with the server's secret: valid in form, for any user and expiry. */
async function forgedCookie(
  sub: string,
  exp = Math.floor(Date.now() / 1000) + 3600,
  secret = inject("sessionSecret"),
  sid = "no-such-session",
) {
  return `cloud_ide_session=${await signSession({ sub, via: "password", sid, exp }, secret)}`;
}

describe("every /api/ and /ws/ route needs a session", () => {
  it("answers 401 with a code when there is no session", async () => {
    const id = await createWorkspace();
    const paths = ["/api/session", "/api/workspaces", `/api/workspaces/${id}/status`, "/api/anything", "/ws/anything"];
    for (const path of paths) {
      const response = await api(path);
      expect(response.status, path).toBe(401);
      expect(await response.json(), path).toMatchObject({ code: "UNAUTHENTICATED" });
    }
    expect(await upgradeAnswer(`/ws/workspaces/${id}/terminals/main`, { Origin: origin() })).toBe(401);
  });

  it("refuses a forged cookie and an expired one", async () => {
    const id = await createWorkspace();
    const forged = await forgedCookie("owner", undefined, "not-the-secret");
    const expired = await forgedCookie("owner", Math.floor(Date.now() / 1000) - 1);
    const tampered = `${(await ownerCookie()).slice(0, -3)}abc`;
    for (const cookie of [forged, expired, tampered, "cloud_ide_session=garbage"]) {
      const response = await api(`/api/workspaces/${id}/status`, { headers: { Cookie: cookie } });
      expect(response.status, cookie).toBe(401);
    }
  });

  it("shows another user's workspace as 404, never 403", async () => {
    const id = await createWorkspace("owner's");
    // A user of this test's own: files running beside this one make workspaces as mallory@ (its list must be empty).
    const mallory = await accessUser("mallory-auth@example.com");
    const asMallory = (init: RequestInit = {}) => ({
      ...init,
      headers: { ...(init.headers as Record<string, string>), ...mallory },
    });
    expect(await (await api("/api/workspaces", asMallory())).json()).toEqual([]);
    for (const [method, path] of [
      ["GET", `/api/workspaces/${id}/status`],
      ["DELETE", `/api/workspaces/${id}`],
    ] as const) {
      const response = await api(path, asMallory({ method }));
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    const rename = await api(`/api/workspaces/${id}`, asMallory(json("PATCH", { name: "mine now" })));
    expect(rename.status).toBe(404);
    // Still the owner's, unchanged.
    const mine = (await (await ownerApi("/api/workspaces")).json()) as { id: string; name: string }[];
    expect(mine.find((w) => w.id === id)?.name).toBe("owner's");
  });
});

describe("Cloudflare Access", () => {
  it("signs in a valid Access token as its email, with workspaces of their own", async () => {
    const ada = { "Cf-Access-Jwt-Assertion": await accessToken("Ada@Example.com"), Origin: origin() };
    const session = await api("/api/session", { headers: ada });
    expect(session.status).toBe(200);
    expect(await session.json()).toEqual({ user: { id: "ada@example.com", via: "access" } });

    const created = await api("/api/workspaces", json("POST", { name: "ada's" }, ada));
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const list = (await (await api("/api/workspaces", { headers: ada })).json()) as { id: string }[];
    expect(list.map((w) => w.id)).toEqual([id]);

    const grace = { "Cf-Access-Jwt-Assertion": await accessToken("grace@example.com"), Origin: origin() };
    expect((await api(`/api/workspaces/${id}/status`, { headers: grace })).status).toBe(404);
    expect((await ownerApi(`/api/workspaces/${id}/status`)).status).toBe(404);
    expect((await api(`/api/workspaces/${id}`, { method: "DELETE", headers: ada })).status).toBe(204);
  });

  it("refuses a token for another audience, an expired one, and one signed by another key", async () => {
    const tokens = [
      await accessToken("ada@example.com", { aud: "another-app" }),
      await accessToken("ada@example.com", { expiresIn: "-1m" }),
      `${(await accessToken("ada@example.com")).slice(0, -4)}AAAA`,
    ];
    for (const token of tokens) {
      const response = await api("/api/workspaces", { headers: { "Cf-Access-Jwt-Assertion": token } });
      expect(response.status).toBe(401);
    }
  });
});

describe("state-changing requests and upgrades come from the app's own origin", () => {
  it("refuses another origin, a preview origin, and no origin with 403", async () => {
    const cookie = await ownerCookie();
    const preview = `http://5173-abc-tok.localhost:${inject("port")}`;
    for (const bad of ["https://evil.example", preview, undefined]) {
      const headers: Record<string, string> = { "Content-Type": "application/json", Cookie: cookie };
      if (bad) headers.Origin = bad;
      const response = await api("/api/workspaces", { method: "POST", headers, body: '{"name":"x"}' });
      expect(response.status, String(bad)).toBe(403);
      expect(await response.json()).toMatchObject({ code: "FORBIDDEN_ORIGIN" });
    }
    const id = await createWorkspace();
    expect(await upgradeAnswer(`/ws/workspaces/${id}/terminals/main`, { Cookie: cookie, Origin: preview })).toBe(403);
  });
});

describe("sign-in", () => {
  it("sets a host-only, HttpOnly, SameSite=Lax, expiring cookie and signs out", async () => {
    const response = await api("/api/session", json("POST", { password: inject("password") }));
    expect(response.status).toBe(204);
    const setCookie = response.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^cloud_ide_session=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    // Valid for 7 days, as the README says.
    expect(setCookie).toMatch(/Max-Age=604800(;|$)/i);
    expect(setCookie).not.toMatch(/Domain=/i);
    const cookie = setCookie.split(";")[0] as string;
    expect(await (await api("/api/session", { headers: { Cookie: cookie } })).json()).toEqual({
      user: { id: "owner", via: "password" },
    });
    const out = await api("/api/session", { method: "DELETE", headers: { Cookie: cookie, Origin: origin() } });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/i);
  });

  it("rate limits failed sign-ins per client address with 429 and Retry-After", async () => {
    const from = { "X-Test-Client-Address": `198.51.100.${Math.floor(Math.random() * 250)}` };
    for (let i = 0; i < 5; i++) {
      const response = await api("/api/session", json("POST", { password: `wrong-${i}` }, from));
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "WRONG_PASSWORD" });
    }
    const blocked = await api("/api/session", json("POST", { password: inject("password") }, from));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await blocked.json()).toMatchObject({ code: "TOO_MANY_ATTEMPTS" });
    // Another address is not affected.
    const other = { "X-Test-Client-Address": "192.0.2.77" };
    expect((await api("/api/session", json("POST", { password: inject("password") }, other))).status).toBe(204);
  });

  it("checks and records each attempt in one step: 30 parallel wrong passwords get at most 5 real checks", async () => {
    const from = { "X-Test-Client-Address": `2001:db8::${Math.floor(Math.random() * 0xffff).toString(16)}` };
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => api("/api/session", json("POST", { password: `guess-${i}` }, from))),
    );
    const statuses = answers.map((r) => r.status);
    const checked = statuses.filter((s) => s === 401).length;
    expect(checked, statuses.join(" ")).toBeGreaterThan(0);
    expect(checked, statuses.join(" ")).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 - checked);
    for (const answer of answers) await answer.body?.cancel();
    // Locked out now, even with the right password; others are not.
    expect((await api("/api/session", json("POST", { password: inject("password") }, from))).status).toBe(429);
    const other = { "X-Test-Client-Address": "2001:db8::1:2" };
    expect((await api("/api/session", json("POST", { password: inject("password") }, other))).status).toBe(204);
  });

  it("never lets a header the caller sends pick the throttle's bucket (issue 42)", async () => {
    // One client (the test's stand-in for an address) whose every attempt names another CF-Connecting-IP,
    // X-Forwarded-For and X-Real-IP: under vite dev workerd keeps a caller's own, so they once chose the bucket.
    const client = { "X-Test-Client-Address": `198.18.0.${Math.floor(Math.random() * 250)}` };
    const spoofed = (i: number) => ({
      ...client,
      "CF-Connecting-IP": `203.0.113.${i}`,
      "X-Forwarded-For": `203.0.113.${100 + i}`,
      "X-Real-IP": `203.0.113.${200 + i}`,
    });
    for (let i = 0; i < 5; i++) {
      expect((await api("/api/session", json("POST", { password: `wrong-${i}` }, spoofed(i)))).status).toBe(401);
    }
    const next = await api("/api/session", json("POST", { password: inject("password") }, spoofed(9)));
    expect(next.status).toBe(429);
  });

  it("answers bad sign-in bodies with a clear code", async () => {
    const cases: [RequestInit, number, string][] = [
      [json("POST", "{not json"), 400, "INVALID_JSON"],
      [
        { method: "POST", headers: { Origin: origin(), "Content-Type": "text/plain" }, body: "pw" },
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      ],
      [json("POST", {}), 401, "WRONG_PASSWORD"],
    ];
    for (const [init, status, code] of cases) {
      const response = await api("/api/session", {
        ...init,
        headers: { ...(init.headers as Record<string, string>), "X-Test-Client-Address": "192.0.2.10" },
      });
      expect(response.status).toBe(status);
      expect(await response.json()).toMatchObject({ code });
    }
  });
});

describe("workspaces", () => {
  it("creates, lists, renames and deletes, destroying the container", async () => {
    const created = await ownerApi("/api/workspaces", json("POST", { name: "  alpha  " }));
    expect(created.status).toBe(201);
    const ws = (await created.json()) as { id: string; name: string };
    expect(ws.name).toBe("alpha");
    expect(ws.id).toMatch(/^[a-z0-9]{16}$/);

    const renamed = await ownerApi(`/api/workspaces/${ws.id}`, json("PATCH", { name: "beta" }));
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ id: ws.id, name: "beta" });

    const before = new Set(runContainers());
    expect((await ownerApi(`/api/workspaces/${ws.id}/wake`, { method: "POST" })).status).toBe(200);
    const started = runContainers().filter((n) => !before.has(n));
    expect(started).toHaveLength(1);

    expect((await ownerApi(`/api/workspaces/${ws.id}`, { method: "DELETE" })).status).toBe(204);
    expect(runContainers()).not.toContain(started[0]);
    const list = (await (await ownerApi("/api/workspaces")).json()) as { id: string }[];
    expect(list.map((w) => w.id)).not.toContain(ws.id);
    // Deleted means gone: no status, no rename, and no container is started again.
    expect((await ownerApi(`/api/workspaces/${ws.id}/status`)).status).toBe(404);
    expect((await ownerApi(`/api/workspaces/${ws.id}`, json("PATCH", { name: "x" }))).status).toBe(404);
    expect(runContainers()).not.toContain(started[0]);
  });

  it("deleting a workspace while it starts leaves no container behind, even for requests waiting on the start", async () => {
    const created = await ownerApi("/api/workspaces", json("POST", { name: "short-lived" }));
    const { id } = (await created.json()) as { id: string };
    const before = new Set(runContainers());
    const ours = () => runContainers().filter((name) => !before.has(name));
    // What an opening page asks for at once: its status and its file tree, both waiting for the start.
    const waiting = [
      ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" }),
      ownerApi(`/api/workspaces/${id}/files/mkdir?path=waiting`, { method: "POST" }),
    ];
    await expect.poll(() => ours().length, { timeout: 30_000, interval: 100 }).toBe(1);

    expect((await ownerApi(`/api/workspaces/${id}`, { method: "DELETE" })).status).toBe(204);
    await Promise.allSettled(waiting);
    // Whatever was waiting has had its answer: nothing may start the container again.
    for (let i = 0; i < 10; i++) {
      expect(ours()).toEqual([]);
      await new Promise((r) => setTimeout(r, 500));
    }
  });

  it("deleting a workspace whose container is being removed from outside answers, and leaves no sidecar", async () => {
    const id = await createWorkspace("removed from outside");
    const before = new Set(runContainers());
    expect((await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" })).status).toBe(200);
    const [container] = runContainers().filter((name) => !before.has(name));
    expect(container).toBeDefined();
    // docker rm -f and the deletion at once: workerd's own destroy went unanswered for minutes in such a race.
    const removing = new Promise((resolve) => {
      execFile("docker", ["rm", "-f", container as string], () => resolve(undefined));
    });
    const deleted = await ownerApi(`/api/workspaces/${id}`, { method: "DELETE" });
    await removing;
    expect(deleted.status).toBe(204);
    expect((await ownerApi(`/api/workspaces/${id}/status`)).status).toBe(404);
    const sidecars = () =>
      execFileSync("docker", ["ps", "-a", "--format", "{{.Names}}", "--filter", `name=${container}-proxy`], {
        encoding: "utf8",
      }).trim();
    await expect.poll(sidecars, { timeout: 30_000, interval: 500 }).toBe("");
  }, 120_000);

  it("answers bad input with a clear code and changes nothing", async () => {
    const id = await createWorkspace("keep me");
    const cases: [string, RequestInit, number, string][] = [
      ["/api/workspaces", json("POST", { name: "" }), 400, "INVALID_WORKSPACE_NAME"],
      ["/api/workspaces", json("POST", { name: "   " }), 400, "INVALID_WORKSPACE_NAME"],
      ["/api/workspaces", json("POST", { name: "x".repeat(200) }), 400, "INVALID_WORKSPACE_NAME"],
      ["/api/workspaces", json("POST", { name: 42 }), 400, "INVALID_WORKSPACE_NAME"],
      ["/api/workspaces", json("POST", "{oops"), 400, "INVALID_JSON"],
      ["/api/workspaces", json("POST", "[1,2]"), 400, "INVALID_JSON"],
      [
        "/api/workspaces",
        { method: "POST", body: "name=x", headers: { "Content-Type": "application/x-www-form-urlencoded" } },
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      ],
      [`/api/workspaces/${id}`, json("PATCH", { name: "x".repeat(200) }), 400, "INVALID_WORKSPACE_NAME"],
      ["/api/workspaces/zzzzzzzzzzzzzzzz", json("PATCH", { name: "x" }), 404, "NOT_FOUND"],
      ["/api/workspaces/zzzzzzzzzzzzzzzz", { method: "DELETE" }, 404, "NOT_FOUND"],
      ["/api/workspaces/zzzzzzzzzzzzzzzz/status", {}, 404, "NOT_FOUND"],
      ["/api/workspaces/Not_An_Id/status", {}, 400, "INVALID_WORKSPACE_ID"],
    ];
    const countBefore = ((await (await ownerApi("/api/workspaces")).json()) as unknown[]).length;
    for (const [path, init, status, code] of cases) {
      const response = await ownerApi(path, init);
      expect(response.status, `${init.method ?? "GET"} ${path}`).toBe(status);
      expect(await response.json()).toMatchObject({ code, message: expect.any(String) });
    }
    const after = (await (await ownerApi("/api/workspaces")).json()) as { id: string; name: string }[];
    expect(after).toHaveLength(countBefore);
    expect(after.find((w) => w.id === id)?.name).toBe("keep me");
  });
});

describe("security headers", () => {
  it("sends a CSP that frames only previews, and nosniff", async () => {
    const response = await api("/");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).toContain(`frame-src http://*.localhost:${inject("port")}`);
    expect(csp).toContain("object-src 'none'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
