/**
 * A new user's first flow on the production bundle (issue 43): in the
 * terminal, `npm create vite` (vanilla), `npm install`, `npm run dev`, with
 * nothing changed. Its dev server listens on localhost, so the preview works
 * only through the resident agent's forward, and every module and asset the
 * page imports (images with `?import`) answers 200 through the preview
 * hostname. The frameworks tier (test/frameworks/) renders it in Chromium
 * under `vite dev`, with many other generators.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListeningPort, PreviewsOverview } from "../../protocol/previews";
import { waitFor } from "../support/lifecycle";
import { ownerPreview, previewRequest } from "../support/previews";
import { createWorkspace, ownerApi } from "../support/session";
import { openTerminalSocket, type TerminalSocket } from "../support/terminal-client";

let workspace: string;
let term: TerminalSocket;

beforeAll(async () => {
  workspace = await createWorkspace("create vite");
  term = await openTerminalSocket(workspace, "create-vite");
  term.type(
    "cd /tmp && npm create --yes vite@latest accapp -- --template vanilla --no-interactive && cd accapp && npm install && npm run dev\r",
  );
});

afterAll(() => term?.ws.close());

/** The module paths a transformed module imports (Vite rewrites them to absolute ones). */
function imports(code: string): string[] {
  return [...code.matchAll(/(?:from\s+|import\s*\(?\s*)["'](\/[^"']+)["']/g)].map((m) => m[1] as string);
}

describe("a fresh create-vite app, run with its own dev command", () => {
  it("previews through the forward of its localhost server, with every module and image", async () => {
    const port = await waitFor(
      "the app's dev server, forwarded",
      async () => {
        const overview = (await (await ownerApi(`/api/workspaces/${workspace}/previews`)).json()) as PreviewsOverview;
        return overview.ports.find((p: ListeningPort) => p.port === 5173 && p.forwarded);
      },
      240_000,
    );
    expect(port.loopbackOnly).toBe(true);
    const { url } = await ownerPreview(workspace, 5173);
    const page = await previewRequest(url);
    expect(page.status).toBe(200);
    // Vite's own client comes first; then the app's entry.
    const scripts = [...page.body.matchAll(/<script type="module" src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual(["/@vite/client", "/src/main.js"]);
    const entry = scripts[1];
    const main = await previewRequest(new URL(entry as string, url).toString());
    expect(main.status).toBe(200);
    const wanted = imports(main.body);
    // The template's images come in as ?import modules.
    expect(wanted.some((path) => path.includes(".svg?import") || path.includes(".png?import"))).toBe(true);
    for (const path of wanted) {
      const answer = await previewRequest(new URL(path, url).toString());
      expect(answer.status, path).toBe(200);
    }
  });
});
