import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ROLES } from "../../protocol/roles";
import { WORKSPACE_ROUTES } from "../workspace-routes";

const label = (route: (typeof WORKSPACE_ROUTES)[number]) =>
  `${route.method} ${route.socket ? "/ws" : "/api"}/workspaces/{id}${route.path}`;

describe("the workspace's route table", () => {
  it("gives every route a role, a wake rule and a schema for each of its inputs", () => {
    expect(WORKSPACE_ROUTES.length).toBeGreaterThan(40);
    for (const route of WORKSPACE_ROUTES) {
      const name = label(route);
      expect(ROLES, name).toContain(route.role);
      expect(["never", "read", "wake"], name).toContain(route.wake);
      const { params, query, body } = route.input;
      expect(params ?? query ?? body, `${name} declares no input at all`).toBeDefined();
      for (const schema of [params, query, body && "json" in body ? body.json : undefined]) {
        if (schema !== undefined) expect(schema, name).toBeInstanceOf(z.ZodType);
      }
      const names = route.path
        .split("/")
        .filter((s) => s.startsWith(":"))
        .map((s) => s.slice(1));
      if (names.length > 0) {
        expect(params, `${name} has params but no params schema`).toBeInstanceOf(z.ZodObject);
        expect(Object.keys((params as z.ZodObject).shape).sort(), name).toEqual(names.sort());
      } else {
        expect(params, `${name} has no params to check`).toBeUndefined();
      }
      if (body && "stream" in body) expect(body.stream, name).toBeGreaterThan(0);
      if (route.method === "GET") expect(body, `${name}: a GET has no body`).toBeUndefined();
    }
  });

  it("names the kind of every long-lived connection, so one person's are capped (issue 42)", () => {
    for (const route of WORKSPACE_ROUTES) {
      if (route.socket) expect(route.connection, label(route)).toBeDefined();
    }
    const streams = WORKSPACE_ROUTES.filter((route) => !route.socket && route.connection).map(label);
    expect(streams.sort()).toEqual(
      ["GET /api/workspaces/{id}/files/watch", "GET /api/workspaces/{id}/agent-chat/events"].sort(),
    );
  });

  it("never lets a GET wake a workspace, except a WebSocket its user opened", () => {
    for (const route of WORKSPACE_ROUTES) {
      if (route.method === "GET" && !route.socket) expect(route.wake, label(route)).not.toBe("wake");
      if (route.socket) expect(route.method, label(route)).toBe("GET");
    }
  });

  it("names each route once", () => {
    const names = WORKSPACE_ROUTES.map((route) => label(route).replace(/:[^/]+/g, ":"));
    expect(new Set(names).size).toBe(names.length);
  });

  it("gives the owner alone: deleting the workspace, its members and invites, network policy, secrets, agent tokens and backups", () => {
    // The roles of issue 24: an editor does everything the owner does but these.
    const owners = WORKSPACE_ROUTES.filter((route) => route.role === "owner")
      .map(label)
      .sort();
    expect(owners).toEqual(
      [
        "DELETE /api/workspaces/{id}/",
        "PUT /api/workspaces/{id}/network",
        "GET /api/workspaces/{id}/network/secrets",
        "PUT /api/workspaces/{id}/network/secrets/:name",
        "DELETE /api/workspaces/{id}/network/secrets/:name",
        "GET /api/workspaces/{id}/git/credentials",
        "PUT /api/workspaces/{id}/git/credentials",
        "DELETE /api/workspaces/{id}/git/credentials",
        "POST /api/workspaces/{id}/git/credentials/github",
        "POST /api/workspaces/{id}/git/credentials/github/poll",
        "POST /api/workspaces/{id}/invites",
        "GET /api/workspaces/{id}/invites",
        "DELETE /api/workspaces/{id}/invites/:inviteId",
        "GET /api/workspaces/{id}/members",
        "PUT /api/workspaces/{id}/members/:memberId",
        "DELETE /api/workspaces/{id}/members/:memberId",
        // Agent tokens are credentials; what they did is listed with them.
        "POST /api/workspaces/{id}/agent-tokens",
        "GET /api/workspaces/{id}/agent-tokens",
        "DELETE /api/workspaces/{id}/agent-tokens/:tokenId",
        "GET /api/workspaces/{id}/agent-activity",
        // A backup holds /root and the past: what neither a viewer's files API nor an editor's shell reads (issue 42).
        "GET /api/workspaces/{id}/backups",
        "POST /api/workspaces/{id}/backups",
        "POST /api/workspaces/{id}/backups/:backupId/restore",
        "GET /api/workspaces/{id}/backups/:backupId/download",
        "DELETE /api/workspaces/{id}/backups/:backupId",
        "POST /api/workspaces/{id}/backups/:backupId/pin",
      ].sort(),
    );
  });

  it("lets a viewer read (files, terminals' output, previews) and change nothing", () => {
    for (const route of WORKSPACE_ROUTES) {
      if (route.role === "owner") continue;
      // A language server's socket sends it document changes: an editor's (a viewer's page goes without).
      // The agent panel's conversation is an editor's, its reads too: a viewer has no agent (it writes).
      // The ssh tunnel is a shell: an editor's.
      const editorsOwn =
        route.path.startsWith("/lsp/") || route.path.startsWith("/agent-chat") || route.path === "/ssh";
      const reads = route.method === "GET" && !editorsOwn;
      // A viewer's writes change nothing of the workspace: waking it to look, their own
      // preview pane's grant, stopping their own search.
      const harmless = [
        "POST /api/workspaces/{id}/wake",
        "POST /api/workspaces/{id}/previews/:port",
        "DELETE /api/workspaces/{id}/search",
      ];
      expect(route.role, label(route)).toBe(reads || harmless.includes(label(route)) ? "viewer" : "editor");
    }
  });
});
