import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ErrorCode } from "../../protocol/errors";
import type { Role } from "../../protocol/roles";
import { AppError } from "../errors";
import { SessionSockets } from "../session-sockets";
import { type DoorDeps, dispatch as doorDispatch, matchRoute } from "./dispatch";
import { type Entrance, enter, entranceOf, withoutInternalHeaders } from "./entrances";
import { type Route, routeDefiner } from "./route";
import { check, none, refusal } from "./schema";

const seen: unknown[] = [];
const defineRoute = routeDefiner<object>();

/** What a workspace's fetch() does with a member's request: the entrance the Worker marked, then the door. */
function dispatch(request: Request, deps: DoorDeps<object>): Promise<Response> {
  const entrance = entranceOf(request);
  if (entrance.kind !== "member") throw new Error(`a ${entrance.kind}'s request`);
  return doorDispatch(request, entrance, deps);
}

const routes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/things/:name",
    role: "viewer",
    wake: "read",
    doc: "A route of this test.",
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
    doc: "A route of this test.",
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
    doc: "A route of this test.",
    input: { query: none, body: { stream: 10 } },
    handle: async () => new Response(null, { status: 204 }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/",
    role: "owner",
    wake: "never",
    doc: "A route of this test.",
    spare: true,
    input: { query: none },
    handle: async () => new Response(null, { status: 204 }),
  }),
  defineRoute({
    method: "GET",
    path: "/socket",
    socket: true,
    role: "editor",
    wake: "wake",
    doc: "A route of this test.",
    input: { query: none },
    handle: async () => new Response("upgraded"),
  }),
];

const roles: Record<string, Role> = { ann: "owner", eve: "editor", val: "viewer" };

function door({ awake = true, spare = false } = {}) {
  let touched = 0;
  return {
    deps: {
      routes,
      roleOf: (caller: string) => roles[caller],
      parts: () => ({}),
      sockets: new SessionSockets(),
      isSpare: () => spare,
      awake: () => awake,
      touch: () => {
        touched++;
      },
    },
    touched: () => touched,
  };
}

function request(method: string, path: string, caller: string, init: RequestInit = {}): Request {
  return enter(new Request(`https://ide.example${path}`, { ...init, method }), {
    kind: "member",
    caller,
    session: "s1",
  });
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

  it("answers only the routes marked spare while the workspace is an unclaimed spare, and reads what it refuses", async () => {
    const spare = door({ spare: true });
    const refused = await dispatch(
      request("POST", "/api/workspaces/w1/things", "ann", {
        body: JSON.stringify({ label: "a" }),
        headers: { "Content-Type": "application/json" },
      }),
      spare.deps,
    );
    const [status, body] = await answer(refused);
    expect(status).toBe(404);
    expect(body).toMatchObject({ code: ErrorCode.NOT_FOUND, message: expect.stringContaining("spare") });
    expect((await dispatch(request("DELETE", "/api/workspaces/w1", "ann"), spare.deps)).status).toBe(204);
    expect(
      (
        await dispatch(
          request("POST", "/api/workspaces/w1/things", "ann", {
            body: "{}",
            headers: { "Content-Type": "application/json" },
          }),
          door().deps,
        )
      ).status,
    ).not.toBe(404);
  });
});

describe("entrances", () => {
  const marks: Entrance[] = [
    { kind: "member", caller: "ann", session: "s1" },
    { kind: "agent" },
    { kind: "preview", port: 5173, token: "tok" },
  ];

  it("reads back the entrance a request was marked with, and only that one", () => {
    for (const mark of marks) {
      // Marked over another entrance's marks: the last one alone counts.
      const twice = enter(enter(new Request("https://ide.example/"), { kind: "preview", port: 1, token: "x" }), mark);
      expect(entranceOf(twice)).toEqual(mark);
    }
  });

  it("a client's copies of the internal headers, in any case, name no entrance once the Worker strips them", async () => {
    const forged = new Request("https://ide.example/", {
      headers: {
        "x-cloud-ide-preview": "5173 tok",
        "X-CLOUD-IDE-AGENT": "1",
        "X-Cloud-IDE-Caller": "ann",
        Accept: "a/b",
      },
    });
    const cleaned = withoutInternalHeaders(forged);
    expect(entranceOf(cleaned)).toEqual({ kind: "member", caller: "", session: "" });
    expect(cleaned.headers.get("Accept")).toBe("a/b");
    // And a member with no caller is a stranger to the door.
    expect((await doorDispatch(cleaned, { caller: "", session: "" }, door().deps)).status).toBe(404);
  });
});
