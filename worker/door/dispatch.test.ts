import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ErrorCode } from "../../protocol/errors";
import type { Role } from "../../protocol/roles";
import { AppError } from "../errors";
import { CALLER_HEADER, dispatch, matchRoute } from "./dispatch";
import type { WorkspaceParts } from "./parts";
import { defineRoute, type Route } from "./route";
import { check, none, refusal } from "./schema";

const seen: unknown[] = [];

const routes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/things/:name",
    role: "viewer",
    wake: "read",
    input: {
      params: z.object({
        name: z.string().refine((n) => /^[a-z]+$/.test(n), refusal(ErrorCode.INVALID_PATH, "bad name")),
      }),
      query: z.object({ n: z.string().optional() }),
    },
    handle: async ({ params, query }) => {
      seen.push({ params, query });
      return Response.json({ ok: true });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/things",
    role: "editor",
    wake: "never",
    input: {
      body: {
        json: z.object({
          count: z.number({ error: "count must be a number." }),
          // A check sees a missing key too (as undefined): it decides.
          label: check((value) => {
            if (value !== undefined && typeof value !== "string") throw new AppError("INVALID_PATH", "label!");
            return value ?? "none";
          }),
        }),
      },
    },
    handle: async ({ body }) => Response.json(body),
  }),
  defineRoute({
    method: "PUT",
    path: "/blob",
    role: "editor",
    wake: "never",
    input: { query: none, body: { stream: 10 } },
    handle: async () => new Response(null, { status: 204 }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/",
    role: "owner",
    wake: "never",
    input: { query: none },
    handle: async () => new Response(null, { status: 204 }),
  }),
  defineRoute({
    method: "GET",
    path: "/socket",
    socket: true,
    role: "editor",
    wake: "wake",
    input: { query: none },
    handle: async () => new Response("upgraded"),
  }),
];

const roles: Record<string, Role> = { ann: "owner", eve: "editor", val: "viewer" };

function door({ awake = true } = {}) {
  let touched = 0;
  return {
    deps: {
      routes,
      roleOf: (caller: string) => roles[caller],
      parts: () => ({}) as WorkspaceParts,
      awake: () => awake,
      touch: () => {
        touched++;
      },
    },
    touched: () => touched,
  };
}

function request(method: string, path: string, caller: string, init: RequestInit = {}): Request {
  const headers = new Headers(init.headers);
  headers.set(CALLER_HEADER, caller);
  return new Request(`https://ide.example${path}`, { ...init, method, headers });
}

async function answer(response: Response): Promise<[number, unknown]> {
  const text = await response.text();
  return [response.status, text && response.headers.get("Content-Type")?.includes("json") ? JSON.parse(text) : text];
}

describe("the door", () => {
  it("answers 404 to anyone without a role, whatever they ask, before any route or input is looked at", async () => {
    for (const [method, path] of [
      ["GET", "/api/workspaces/w1/things/abc"],
      ["GET", "/api/workspaces/w1/nothing"],
      ["DELETE", "/api/workspaces/w1"],
    ] as const) {
      const [status, body] = await answer(await dispatch(request(method, path, "mallory"), door().deps));
      expect(status).toBe(404);
      expect(body).toEqual({ code: "NOT_FOUND", message: "No such workspace." });
    }
  });

  it("refuses a role below the route's with 403 FORBIDDEN, before reading the body", async () => {
    const tooLow = await dispatch(
      request("POST", "/api/workspaces/w1/things", "val", {
        body: "not json",
        headers: { "Content-Type": "text/plain" },
      }),
      door().deps,
    );
    expect(await answer(tooLow)).toEqual([403, expect.objectContaining({ code: "FORBIDDEN" })]);
    const owner = await dispatch(request("DELETE", "/api/workspaces/w1", "eve"), door().deps);
    expect(owner.status).toBe(403);
    expect((await dispatch(request("DELETE", "/api/workspaces/w1", "ann"), door().deps)).status).toBe(204);
  });

  it("checks params, query and JSON body by their schemas, with the refusal's own code", async () => {
    expect(await answer(await dispatch(request("GET", "/api/workspaces/w1/things/AB", "val"), door().deps))).toEqual([
      400,
      { code: "INVALID_PATH", message: "bad name" },
    ]);
    const ok = await dispatch(request("GET", "/api/workspaces/w1/things/ab?n=3&extra=1", "val"), door().deps);
    expect(ok.status).toBe(200);
    expect(seen.at(-1)).toEqual({ params: { name: "ab" }, query: { n: "3" } });
    const json = { "Content-Type": "application/json" };
    const wrong = await dispatch(
      request("POST", "/api/workspaces/w1/things", "eve", { body: '{"count":"3"}', headers: json }),
      door().deps,
    );
    expect(await answer(wrong)).toEqual([400, { code: "BAD_REQUEST", message: "count must be a number." }]);
    const notJson = await dispatch(request("POST", "/api/workspaces/w1/things", "eve", { body: "{}" }), door().deps);
    expect((await answer(notJson))[1]).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
    const good = await dispatch(
      request("POST", "/api/workspaces/w1/things", "eve", { body: '{"count":3}', headers: json }),
      door().deps,
    );
    expect(await answer(good)).toEqual([200, { count: 3, label: "none" }]);
    const badLabel = await dispatch(
      request("POST", "/api/workspaces/w1/things", "eve", { body: '{"count":3,"label":4}', headers: json }),
      door().deps,
    );
    expect(await answer(badLabel)).toEqual([400, { code: "INVALID_PATH", message: "label!" }]);
  });

  it("limits a streamed body by its declared length, and requires one", async () => {
    const big = await dispatch(
      request("PUT", "/api/workspaces/w1/blob", "eve", { body: "x".repeat(11), headers: { "Content-Length": "11" } }),
      door().deps,
    );
    expect((await answer(big))[1]).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("abc"));
        controller.close();
      },
    });
    const unknown = await dispatch(
      request("PUT", "/api/workspaces/w1/blob", "eve", { body: stream, duplex: "half" } as RequestInit),
      door().deps,
    );
    expect((await answer(unknown))[1]).toMatchObject({ code: "LENGTH_REQUIRED" });
  });

  it("refuses a read of a sleeping workspace, counting only what is use", async () => {
    const asleep = door({ awake: false });
    const read = await dispatch(request("GET", "/api/workspaces/w1/things/ab", "val"), asleep.deps);
    expect((await answer(read))[1]).toMatchObject({ code: "WORKSPACE_ASLEEP" });
    expect(asleep.touched()).toBe(0);
    const awake = door();
    await dispatch(request("GET", "/api/workspaces/w1/things/ab", "val"), awake.deps);
    await dispatch(
      request("POST", "/api/workspaces/w1/things", "eve", {
        body: "{}",
        headers: { "Content-Type": "application/json" },
      }),
      awake.deps,
    );
    expect(awake.touched()).toBe(1);
  });

  it("serves WebSocket routes under /ws only, and only as an upgrade", async () => {
    expect(matchRoute(routes, "GET", "/api/workspaces/w1/socket")).toBeUndefined();
    expect(matchRoute(routes, "GET", "/ws/workspaces/w1/things/ab")).toBeUndefined();
    const plain = await dispatch(request("GET", "/ws/workspaces/w1/socket", "eve"), door().deps);
    expect((await answer(plain))[1]).toMatchObject({ code: "UPGRADE_REQUIRED" });
    const upgrade = await dispatch(
      request("GET", "/ws/workspaces/w1/socket", "eve", { headers: { Upgrade: "websocket" } }),
      door().deps,
    );
    expect(await upgrade.text()).toBe("upgraded");
    const viewer = await dispatch(
      request("GET", "/ws/workspaces/w1/socket", "val", { headers: { Upgrade: "websocket" } }),
      door().deps,
    );
    expect(viewer.status).toBe(403);
  });
});
