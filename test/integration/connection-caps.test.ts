/**
 * One person's long-lived connections to a workspace are capped by kind
 * (protocol/connections.ts, issue 42 "Also"): past the cap the door answers
 * 429 TOO_MANY_CONNECTIONS (an event stream ends the person's oldest
 * instead), another person is not counted with them, and a connection that
 * closes frees its place. Tried on the presence room (a WebSocket: it
 * accepted 100 from one person) and the file-change stream (server-sent events).
 */
import { readFileSync, statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { MAX_CONNECTIONS_PER_PERSON } from "../../protocol/connections";
import { api } from "../support/api";
import { waitFor } from "../support/lifecycle";
import { createWorkspace, ownerApi, ownerCookie } from "../support/session";
import { accessUser } from "../support/users";

let id: string;
const opened: WebSocket[] = [];
const streams: AbortController[] = [];

afterAll(() => {
  for (const socket of opened) socket.terminate();
  for (const stream of streams) stream.abort();
});

beforeAll(async () => {
  id = await createWorkspace("connection caps", "empty");
  const response = await ownerApi(`/api/workspaces/${id}/test-hooks/members`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user: "caps-editor@example.com", role: "editor" }),
  });
  expect(response.status).toBe(204);
});

function logSize(): number {
  return statSync(inject("serverLog")).size;
}

/**
 * Opens a WebSocket; resolves with it once open, or with the status it was
 * refused with: the HTTP answer when the transport passes it on, else the
 * Worker's log of the refusal (vite dev drops a refused upgrade's connection).
 */
async function upgrade(path: string, headers: Record<string, string>): Promise<WebSocket | string> {
  const logged = logSize();
  const url = new URL(path, inject("baseUrl"));
  url.protocol = "ws:";
  const socket = new WebSocket(url, { headers });
  const answer = await new Promise<WebSocket | string | "dropped">((resolve) => {
    socket.once("open", () => resolve(socket));
    socket.once("unexpected-response", (_req, res) => {
      resolve(String(res.statusCode));
      socket.terminate();
    });
    socket.once("error", () => resolve("dropped"));
  });
  if (answer !== "dropped") {
    if (answer instanceof WebSocket) opened.push(answer);
    return answer;
  }
  return waitFor(`the logged refusal of ${url.pathname}`, () => {
    const line = readFileSync(inject("serverLog"))
      .subarray(logged)
      .toString("utf8")
      .split("\n")
      .find((l) => l.includes(`refused WebSocket upgrade ${url.pathname}:`));
    return line ? (/: (\d{3}(?: [A-Z_]+)?)/.exec(line)?.[1] ?? line) : undefined;
  });
}

async function owner(): Promise<Record<string, string>> {
  return { Origin: inject("baseUrl"), Cookie: await ownerCookie() };
}

describe("one person's connections of a kind", () => {
  it("in the presence room stop at the cap with 429 TOO_MANY_CONNECTIONS; another person's still open", async () => {
    const cap = MAX_CONNECTIONS_PER_PERSON.presence;
    const path = `/ws/workspaces/${id}/collab/presence`;
    const mine: WebSocket[] = [];
    for (let i = 0; i < cap; i++) {
      const socket = await upgrade(path, await owner());
      expect(socket, `socket ${i + 1}`).toBeInstanceOf(WebSocket);
      mine.push(socket as WebSocket);
    }
    expect(await upgrade(path, await owner())).toBe("429 TOO_MANY_CONNECTIONS");
    // Another person (an editor of the workspace) has places of their own.
    expect(await upgrade(path, await accessUser("caps-editor@example.com"))).toBeInstanceOf(WebSocket);
    // One of the owner's closes: its place is free again (once the workspace saw it close).
    const first = mine[0] as WebSocket;
    await new Promise<void>((resolve) => {
      first.once("close", () => resolve());
      first.close();
    });
    const again = await waitFor("a place after a socket closed", async () => {
      const answer = await upgrade(path, await owner());
      return answer instanceof WebSocket ? answer : undefined;
    });
    expect(again).toBeInstanceOf(WebSocket);
  });

  it("of file changes (an event stream) stay at the cap: one more ends that person's oldest", async () => {
    const cap = MAX_CONNECTIONS_PER_PERSON["file-events"];
    const watch = async (headers: Record<string, string>) => {
      const stream = new AbortController();
      streams.push(stream);
      const response = await api(`/api/workspaces/${id}/files/watch`, { headers, signal: stream.signal });
      return { response, reader: response.body?.getReader() };
    };
    const mine: Awaited<ReturnType<typeof watch>>[] = [];
    for (let i = 0; i < cap; i++) {
      const opened = await watch(await owner());
      expect(opened.response.status, `stream ${i + 1}`).toBe(200);
      mine.push(opened);
    }
    // A page that went away does not always end its stream (locally workerd never tells the workspace), so
    // refusing would lock the person out after enough reloads: one more is let in, and the oldest ends.
    const next = await watch(await owner());
    expect(next.response.status).toBe(200);
    const oldest = mine[0]?.reader as ReadableStreamDefaultReader<Uint8Array>;
    for (;;) {
      const { done } = await oldest.read();
      if (done) break;
    }
    // Another person's are their own.
    expect((await watch(await accessUser("caps-editor@example.com"))).response.status).toBe(200);
  });
});
