/**
 * Dev servers that listen on loopback only preview like any other (issue 43,
 * part 2), through the production path: locally, as on Cloudflare, the
 * Worker reaches a container's port on the container's own address only
 * (test/integration/local-isolation.test.ts shows the relay never reaches
 * its loopback), so these previews work only because the resident agent
 * forwards each loopback-only port (sandbox/loopback_forwarder.py).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListeningPort, PreviewsOverview } from "../../protocol/previews";
import { waitFor } from "../support/lifecycle";
import { firstMessage, ownerPreview, previewHmrSocket, previewRequest } from "../support/previews";
import { createWorkspace, ownerApi } from "../support/session";
import { openTerminalSocket, type TerminalSocket } from "../support/terminal-client";

let workspace: string;
let term: TerminalSocket;

async function listening(port: number): Promise<ListeningPort | undefined> {
  const overview = (await (await ownerApi(`/api/workspaces/${workspace}/previews`)).json()) as PreviewsOverview;
  return overview.ports.find((p) => p.port === port);
}

/** Waits until `port` is listed as `expected` says (a forwarded loopback-only port, or one on every address). */
function listed(port: number, expected: Partial<ListeningPort>): Promise<ListeningPort> {
  return waitFor(
    `port ${port} listed as ${JSON.stringify(expected)}`,
    async () => {
      const found = await listening(port);
      if (!found) return undefined;
      return Object.entries(expected).every(([key, value]) => found[key as keyof ListeningPort] === value)
        ? found
        : undefined;
    },
    90_000,
  );
}

beforeAll(async () => {
  workspace = await createWorkspace("loopback previews");
  term = await openTerminalSocket(workspace, "loopback");
  // As people start them: Python on 127.0.0.1 and on ::1, and the template's
  // Vite told to listen on localhost (create-vite's default).
  term.type(
    "python3 -m http.server --bind 127.0.0.1 --directory /etc 7311 >/dev/null 2>&1 & " +
      "python3 -m http.server --bind ::1 --directory /etc 7312 >/dev/null 2>&1 & " +
      "(cd /workspace && exec npx vite --host localhost --port 5190 --strictPort >/tmp/vite-5190.log 2>&1 &)\r",
  );
});

afterAll(() => {
  term?.type("kill %1 %2; pkill -f 'vite --host localhost'\r");
  term?.ws.close();
});

describe("a dev server that listens on loopback only", () => {
  it.each([
    [7311, "127.0.0.1"],
    [7312, "::1"],
  ])("previews on port %i (%s) through the agent's forward, and the pane gives no warning", async (port) => {
    const found = await listed(port, { loopbackOnly: true, forwarded: true });
    expect(found.forwardError).toBeUndefined();
    expect(found.process).toContain("http.server");
    const access = await ownerPreview(workspace, port);
    const page = await previewRequest(access.url);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Directory listing for /");
  });

  it("previews Vite on localhost with its hot-reload socket", async () => {
    await listed(5190, { loopbackOnly: true, forwarded: true });
    const access = await ownerPreview(workspace, 5190);
    const page = await previewRequest(access.url);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script type="module" src="/src/main.tsx">');
    const socket = await previewHmrSocket(access.url);
    const message = JSON.parse(await firstMessage(socket)) as { type: string };
    expect(message.type).toBe("connected");
    socket.close();
  });

  it("lets go of the port when the server stops, so it can start again on every address", async () => {
    await listed(7311, { loopbackOnly: true, forwarded: true });
    term.type("kill %1; sleep 1; python3 -m http.server --bind 0.0.0.0 --directory /etc 7311 >/tmp/again.log 2>&1 &\r");
    // The new server itself, on every address: for a scan or two the forwarder's own listeners may still be
    // seen (the agent's process, not http.server) while it lets go.
    const again = await waitFor(
      "port 7311 held by the new http.server on every address",
      async () => {
        const found = await listening(7311);
        return found && !found.loopbackOnly && found.process?.includes("http.server") ? found : undefined;
      },
      90_000,
    );
    expect(again.forwarded).toBeUndefined();
    const page = await previewRequest((await ownerPreview(workspace, 7311)).url);
    expect(page.status).toBe(200);
  });
});
