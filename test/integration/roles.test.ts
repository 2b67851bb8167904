/**
 * The door's roles, route by route (worker/door/): the route table is walked,
 * so a route added later is checked too. A member whose role is below a
 * route's gets 403 FORBIDDEN from it, HTTP and WebSocket alike, and changes
 * nothing; a user with no role at all gets 404, as if the workspace did not
 * exist. Members come from a test hook (any user id, any role) and, for a
 * guest, from a real invite link (issue 24).
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { LANGUAGE_SERVERS } from "../../protocol/language-servers";
import { hasRole, type Role } from "../../protocol/roles";
import type { SessionInfo } from "../../protocol/session";
import { api } from "../support/api";
import { createInvite, joinAsGuest } from "../support/guests";
import { post } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";
import { accessUser } from "../support/users";

const SAMPLE_PARAMS: Record<string, string> = {
  name: "main",
  port: "5173",
  shareId: "abcdefabcdef",
  language: LANGUAGE_SERVERS[0] as string,
};

/** A route as the test hook describes it (worker/testing/test-entry.ts). */
interface Route {
  method: string;
  path: string;
  socket: boolean;
  role: Role;
  body: "json" | "stream" | null;
}

let id: string;
/** The table the server serves, so a route added later is walked too. */
let WORKSPACE_ROUTES: Route[];

beforeAll(async () => {
  id = await createWorkspace("roles");
  WORKSPACE_ROUTES = (await (await ownerApi("/api/test-hooks/routes")).json()) as Route[];
  expect(WORKSPACE_ROUTES.length).toBeGreaterThan(40);
});

async function grant(user: string, role: Role | null): Promise<void> {
  const response = await ownerApi(`/api/workspaces/${id}/test-hooks/members`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user, role }),
  });
  expect(response.status).toBe(204);
}

function pathOf(route: Route, unique = ""): string {
  const path = route.path.replace(/:([a-zA-Z]+)/g, (_, name: string) =>
    name === "name" && route.socket ? `t${unique}` : (SAMPLE_PARAMS[name] ?? "x"),
  );
  return `/${route.socket ? "ws" : "api"}/workspaces/${id}${path === "/" ? "" : path}`;
}

/** A request the route would take if the caller had the role: a JSON object, or a few bytes for a stream. */
function initOf(route: Route, headers: Record<string, string>): RequestInit {
  if (!route.body) return { method: route.method, headers };
  if (route.body === "json") {
    return { method: route.method, headers: { ...headers, "Content-Type": "application/json" }, body: "{}" };
  }
  return { method: route.method, headers, body: "bytes" };
}

/**
 * The status a WebSocket upgrade got: its HTTP answer when the transport
 * passes it on, else the Worker's log of the refusal (vite dev drops the
 * connection of a refused upgrade), read from what was logged after it was sent.
 */
async function upgradeStatus(path: string, headers: Record<string, string>): Promise<number> {
  const log = process.env.CLOUD_IDE_SERVER_LOG;
  const logged = log ? readFileSync(log, "utf8").length : 0;
  const url = new URL(path, inject("baseUrl"));
  url.protocol = "ws:";
  const answer = await new Promise<number | "dropped">((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.on("open", () => {
      resolve(101);
      socket.close();
    });
    socket.on("error", () => resolve("dropped"));
  });
  if (answer !== "dropped") return answer;
  if (!log) throw new Error("the upgrade was dropped and CLOUD_IDE_SERVER_LOG (set by npm test) names no log to read");
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = readFileSync(log, "utf8")
      .slice(logged)
      .split("\n")
      .find((l) => l.includes(`refused WebSocket upgrade ${url.pathname}:`));
    if (line) return Number(/: (\d{3})/.exec(line)?.[1]);
    if (Date.now() > deadline) throw new Error(`no answer and no logged refusal for ${url.pathname}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every route above `role` answers `user` (an Access user's email, or a guest's headers) 403 FORBIDDEN. */
async function expectForbiddenAbove(role: Role, user: string | Record<string, string>): Promise<number> {
  const headers = typeof user === "string" ? await accessUser(user) : user;
  let checked = 0;
  for (const route of WORKSPACE_ROUTES.filter((r) => !hasRole(role, r.role))) {
    const name = `${route.method} ${route.socket ? "ws " : ""}${route.path} as ${role}`;
    if (route.socket) {
      expect(await upgradeStatus(pathOf(route, `${checked}${role}`), headers), name).toBe(403);
    } else {
      const response = await api(pathOf(route), initOf(route, headers));
      expect(response.status, name).toBe(403);
      expect(await response.json(), name).toMatchObject({ code: "FORBIDDEN" });
    }
    checked++;
  }
  return checked;
}

describe("a member's role", () => {
  it("below a route's role is refused 403 FORBIDDEN on every such route, HTTP and WebSocket", async () => {
    await grant("viewer-roles@example.com", "viewer");
    await grant("editor-roles@example.com", "editor");
    const aboveViewer = await expectForbiddenAbove("viewer", "viewer-roles@example.com");
    const aboveEditor = await expectForbiddenAbove("editor", "editor-roles@example.com");
    // Both kinds were walked: changes a viewer may not make, and the owner's own routes.
    expect(aboveViewer).toBeGreaterThan(aboveEditor);
    expect(aboveEditor).toBeGreaterThan(5);
    // Nothing was changed: the workspace is still there, named as it was, with its network policy.
    const list = (await (await ownerApi("/api/workspaces")).json()) as { id: string; name: string }[];
    expect(list.find((w) => w.id === id)?.name).toBe("roles");
    const secrets = (await (await ownerApi(`/api/workspaces/${id}/network/secrets`)).json()) as { secrets: unknown[] };
    expect(secrets.secrets).toEqual([]);
  });

  it("is enough for the routes it names: a viewer reads, an editor changes files", async () => {
    await grant("viewer-roles@example.com", "viewer");
    await grant("editor-roles@example.com", "editor");
    const viewer = await accessUser("viewer-roles@example.com");
    const editor = await accessUser("editor-roles@example.com");
    const status = await api(`/api/workspaces/${id}/status`, { headers: viewer });
    expect(status.status).toBe(200);
    const put = await api(`/api/workspaces/${id}/files/content?path=by-editor.txt`, {
      method: "PUT",
      headers: editor,
      body: "from the editor",
    });
    expect(put.status).toBe(200);
    const read = await api(`/api/workspaces/${id}/files/content?path=by-editor.txt`, { headers: viewer });
    expect(read.status).toBe(200);
    expect(await read.text()).toBe("from the editor");
    // The viewer may not write it.
    const refused = await api(`/api/workspaces/${id}/files/content?path=by-editor.txt`, {
      method: "PUT",
      headers: viewer,
      body: "from the viewer",
    });
    expect(refused.status).toBe(403);
    expect(await (await ownerApi(`/api/workspaces/${id}/files/content?path=by-editor.txt`)).text()).toBe(
      "from the editor",
    );
  });

  it("of a guest who joined by an invite link as a viewer is the same: 403 on every route above it", async () => {
    const invite = await createInvite(id, { role: "viewer", ttlSeconds: 600 });
    const guest = await joinAsGuest(invite.url, "Route Walker");
    expect(await expectForbiddenAbove("viewer", guest)).toBeGreaterThan(20);
    // Their reads work.
    expect((await api(`/api/workspaces/${id}/status`, { headers: guest })).status).toBe(200);
  });

  it("taken away leaves the user with nothing: 404 on every route, as for anyone else", async () => {
    await grant("viewer-roles@example.com", null);
    const headers = await accessUser("viewer-roles@example.com");
    let walked = 0;
    for (const route of WORKSPACE_ROUTES) {
      const name = `${route.method} ${route.socket ? "ws " : ""}${route.path}`;
      if (route.socket) {
        expect(await upgradeStatus(pathOf(route, `${walked}gone`), headers), name).toBe(404);
      } else {
        const response = await api(pathOf(route), initOf(route, headers));
        expect(response.status, name).toBe(404);
        expect(await response.json(), name).toMatchObject({ code: "NOT_FOUND", message: "No such workspace." });
      }
      walked++;
    }
    expect(walked).toBe(WORKSPACE_ROUTES.length);
  });
});

describe("the entrances' headers (worker/door/entrances.ts)", () => {
  it("forged by a signed-in stranger name nobody: as the owner, as an agent or as a preview, every answer is 404", async () => {
    const stranger = await accessUser("forger-roles@example.com");
    const owner = ((await (await ownerApi("/api/session")).json()) as SessionInfo).user.id;
    const forgeries: Record<string, string>[] = [
      { "X-Cloud-IDE-Caller": owner, "X-Cloud-IDE-Session": "forged" },
      // Header names are case-insensitive: a copy in another case is one too.
      { "x-cloud-ide-caller": owner },
      { "X-Cloud-IDE-Agent": "1" },
      { "X-Cloud-IDE-Preview": `5173 ${"a".repeat(32)}` },
    ];
    for (const forged of forgeries) {
      const name = JSON.stringify(forged);
      const read = await api(`/api/workspaces/${id}/files?path=.`, { headers: { ...stranger, ...forged } });
      expect(read.status, name).toBe(404);
      expect(((await read.json()) as { code: string }).code, name).toBe("NOT_FOUND");
      const write = await api(`/api/workspaces/${id}/files/content?path=forged.txt`, {
        method: "PUT",
        headers: { ...stranger, ...forged },
        body: "forged",
      });
      expect(write.status, name).toBe(404);
    }
    // Nothing was written, and the owner's own requests are as before.
    // Awake (earlier tests may have let it sleep), so the read below is answered and not 409.
    expect((await post(`/api/workspaces/${id}/wake`)).status).toBe(200);
    const listed = await ownerApi(`/api/workspaces/${id}/files/content?path=forged.txt`);
    expect(listed.status).toBe(404);
    expect((await ownerApi(`/api/workspaces/${id}/status`)).status).toBe(200);
  });
});
