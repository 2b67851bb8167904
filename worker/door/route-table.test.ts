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

  it("keeps policy, secrets, credentials and the workspace's existence the owner's", () => {
    const owners = WORKSPACE_ROUTES.filter((route) => route.role === "owner").map(label);
    expect(owners).toEqual(
      expect.arrayContaining([
        "PUT /api/workspaces/{id}/network",
        "PUT /api/workspaces/{id}/network/secrets/:name",
        "DELETE /api/workspaces/{id}/network/secrets/:name",
        "GET /api/workspaces/{id}/network/secrets",
        "PUT /api/workspaces/{id}/git/credentials",
        "DELETE /api/workspaces/{id}/",
      ]),
    );
    // Reads never need more than a viewer.
    for (const route of WORKSPACE_ROUTES) {
      if (route.method === "GET" && !route.socket && !/secrets|credentials/.test(route.path)) {
        expect(route.role, label(route)).toBe("viewer");
      }
    }
  });
});
