/**
 * The connection under a request: an early answer (refused before or after
 * the body was read) leaves a kept-alive connection usable, and the tests'
 * own requests survive the synchronous `docker exec`s that block their event
 * loop (the cause of the "fetch failed: other side closed" once blamed on the
 * dispatcher's early 412: test/support/api.ts).
 */
import { execFileSync } from "node:child_process";
import http from "node:http";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { filesUrl, putFile, shell, workspaceContainer } from "../support/files";
import { createWorkspace, ownerApi, ownerCookie } from "../support/session";

let id: string;
let container: string;

beforeAll(async () => {
  id = await createWorkspace("connections test", "empty");
  container = await workspaceContainer(id);
});

/** One request on `agent`'s connection (node:http, so which socket it used is known). */
async function onAgent(
  agent: http.Agent,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Uint8Array,
): Promise<{ status: number; body: string; reusedSocket: boolean }> {
  const base = new URL(inject("baseUrl"));
  const cookie = await ownerCookie();
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent,
        headers: { Cookie: cookie, Origin: inject("baseUrl"), ...headers },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: text, reusedSocket: request.reusedSocket }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

describe("a connection", () => {
  it("stays usable after the door answers a PUT early, before or after reading its body", async () => {
    const first = await putFile(id, "early/a.txt", "one");
    const etag = first.headers.get("etag") as string;
    shell(container, "echo changed > /workspace/early/a.txt");
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const stat = () => onAgent(agent, "GET", filesUrl(id, "/stat", { path: "early/a.txt" }));
      expect((await stat()).status).toBe(200);
      for (const size of [5, 3_000_000]) {
        const body = new Uint8Array(size).fill(65);
        const length = { "Content-Length": String(size) };
        // 412 FILE_CHANGED: the container read the body, then found the file changed.
        const stale = await onAgent(
          agent,
          "PUT",
          filesUrl(id, "/content", { path: "early/a.txt" }),
          {
            ...length,
            "If-Match": etag,
          },
          body,
        );
        expect(stale.status).toBe(412);
        expect(JSON.parse(stale.body)).toMatchObject({ code: "FILE_CHANGED" });
        const afterStale = await stat();
        expect(afterStale).toMatchObject({ status: 200, reusedSocket: true });
        // 400 INVALID_PATH: the dispatcher refuses the query before a byte of the body is read.
        const refused = await onAgent(agent, "PUT", filesUrl(id, "/content", { path: "../a.txt" }), length, body);
        expect(refused.status).toBe(400);
        expect(JSON.parse(refused.body)).toMatchObject({ code: "INVALID_PATH" });
        expect(await stat()).toMatchObject({ status: 200, reusedSocket: true });
      }
      expect(shell(container, "cat /workspace/early/a.txt")).toBe("changed");
    } finally {
      agent.destroy();
    }
  });

  it("is not a kept-alive one the server closed while a docker exec blocked the test's event loop", async () => {
    // The dev server (Node) closes a connection idle for 5 s; a change sent on it before
    // the client noticed failed with "other side closed" (about one time in two).
    for (const round of [1, 2, 3]) {
      expect((await ownerApi("/api/health")).status).toBe(200);
      execFileSync("sleep", ["6"]);
      const renamed = await ownerApi(`/api/workspaces/${id}`, {
        method: "PATCH",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: `connections test ${round}` }),
      });
      expect(renamed.status).toBe(200);
    }
  });
});
