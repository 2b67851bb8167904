import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { GrantList, PreviewAccess, ShareLink } from "../../protocol/previews";
import { api } from "../support/api";
import { putFile } from "../support/files";
import { isRunning, peek, post, testHooks, waitFor, wake } from "../support/lifecycle";
import {
  closed,
  createShare,
  firstMessage,
  ownerPreview,
  previewHmrSocket,
  previewRequest,
  startTemplateDevServer,
} from "../support/previews";
import { createWorkspace, ownerApi } from "../support/session";
import { accessUser } from "../support/users";

const NOT_FOUND_TITLE = "This preview does not exist";

/** The preview URL with one part of its label changed. */
function relabel(url: string, change: (parts: { port: string; id: string; token: string }) => string): string {
  const parsed = new URL(url);
  const [label = "", ...rest] = parsed.hostname.split(".");
  const [port = "", id = "", token = ""] = label.split("-");
  parsed.hostname = [change({ port, id, token }), ...rest].join(".");
  return parsed.toString();
}

async function expectPreview404(url: string) {
  const response = await previewRequest(url);
  expect(response.status, url).toBe(404);
  expect(response.body).toContain(NOT_FOUND_TITLE);
  // Never the IDE's own page, never the dev server's.
  expect(response.body).not.toContain('<div id="root">');
}

let workspace: string;
let owner: PreviewAccess;

beforeAll(async () => {
  workspace = await createWorkspace("previews");
  await startTemplateDevServer(workspace);
  owner = await ownerPreview(workspace, 5173);
});

afterAll(async () => {
  if (workspace) await ownerApi(`/api/workspaces/${workspace}/previews/dev-server`, { method: "DELETE" });
});

describe("a preview hostname", () => {
  it("serves the template's dev server under the owner's grant, with the preview Host", async () => {
    expect(owner.url).toMatch(new RegExp(`^http://5173-${workspace}-[a-z0-9]{24}\\.localhost:${inject("port")}/$`));
    // The owner's grant lasts 5 minutes (renewed every minute while the pane is open).
    const left = Date.parse(owner.expiresAt) - Date.now();
    expect(left).toBeGreaterThan(4 * 60_000);
    expect(left).toBeLessThanOrEqual(5 * 60_000);
    const page = await previewRequest(owner.url);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script type="module" src="/src/main.tsx">');
    // Vite's own client, which only the dev server in the container serves at this path.
    const client = await previewRequest(new URL("/@vite/client", owner.url).toString());
    expect(client.status).toBe(200);
    expect(client.body).toContain("vite-hmr");
  });

  it("serves assets imported as create-vite templates import them (`?import`) from the workspace's dev server (issue 43)", async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>';
    for (const name of ["hero.svg", "vite.svg"]) {
      expect((await putFile(workspace, `src/assets/${name}`, svg)).status).toBeLessThan(300);
      const asModule = await previewRequest(new URL(`/src/assets/${name}?import`, owner.url).toString());
      expect(asModule.status, name).toBe(200);
      // Vite's module for an asset: its URL, or the asset inlined (small ones).
      expect(asModule.body).toMatch(/^export default "(?:\/src\/assets\/|data:image\/svg\+xml)/);
      const asset = await previewRequest(new URL(`/src/assets/${name}`, owner.url).toString());
      expect(asset.status, name).toBe(200);
      expect(asset.body).toBe(svg);
    }
  });

  it("bridges Vite's hot-reload socket and passes its subprotocol back", async () => {
    const socket = await previewHmrSocket(owner.url);
    const message = JSON.parse(await firstMessage(socket)) as { type: string };
    expect(message.type).toBe("connected");
    expect(socket.protocol).toBe("vite-hmr");
    socket.close();
  });

  it("renews a pane's own grant with the same URL; another open is another URL", async () => {
    const again = await ownerPreview(workspace, 5173, owner.id);
    expect(again.url).toBe(owner.url);
    expect(Date.parse(again.expiresAt)).toBeGreaterThanOrEqual(Date.parse(owner.expiresAt));
    // Short-lived: minutes, renewed while the pane is open (not the hour it was).
    expect(Date.parse(again.expiresAt) - Date.now()).toBeLessThanOrEqual(5 * 60_000 + 5_000);
    const other = await ownerPreview(workspace, 5173);
    expect(other.url).not.toBe(owner.url);
    expect(other.id).not.toBe(owner.id);
  });

  it("lists the owner's grants beside shares; revoking one ends its URL and sockets at once", async () => {
    const pane = await ownerPreview(workspace, 5173);
    const listed = (await (await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares`)).json()) as GrantList;
    expect(listed.owner.map((g) => g.id)).toContain(pane.id);
    expect(listed.owner.find((g) => g.id === pane.id)).toMatchObject({ kind: "owner", url: pane.url });
    expect(listed.shares.every((s) => s.kind === "share")).toBe(true);
    expect((await previewRequest(pane.url)).status).toBe(200);
    const socket = await previewHmrSocket(pane.url);
    await firstMessage(socket);
    const revoke = await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares/${pane.id}`, { method: "DELETE" });
    expect(revoke.status).toBe(204);
    expect(await closed(socket)).toBe(1008);
    await expectPreview404(pane.url);
    // The pane renewing a revoked grant gets a new URL, never the old one back.
    const renewed = await ownerPreview(workspace, 5173, pane.id);
    expect(renewed.url).not.toBe(pane.url);
    await expectPreview404(pane.url);
  });

  it("answers 404 for a made-up token, another port, an out-of-range port and an unknown workspace", async () => {
    await expectPreview404(relabel(owner.url, ({ port, id }) => `${port}-${id}-${"a".repeat(24)}`));
    await expectPreview404(relabel(owner.url, ({ id, token }) => `3000-${id}-${token}`));
    await expectPreview404(relabel(owner.url, ({ id, token }) => `80-${id}-${token}`));
    await expectPreview404(relabel(owner.url, ({ id, token }) => `70000-${id}-${token}`));
    await expectPreview404(relabel(owner.url, ({ port, token }) => `${port}-nosuchworkspace0-${token}`));
    await expectPreview404(relabel(owner.url, ({ port, id, token }) => `${port}-${id}-${token.toUpperCase()}x`));
    await expectPreview404(relabel(owner.url, () => "not-a-preview"));
  });

  it("answers 404 for a share token used with another port or another workspace", async () => {
    const other = await createWorkspace("previews other");
    const response = await createShare(workspace, 5173);
    expect(response.status).toBe(201);
    const share = (await response.json()) as ShareLink;
    expect((await previewRequest(share.url)).status).toBe(200);
    await expectPreview404(relabel(share.url, ({ id, token }) => `5174-${id}-${token}`));
    await expectPreview404(relabel(share.url, ({ port, token }) => `${port}-${other}-${token}`));
    await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares/${share.id}`, { method: "DELETE" });
  });

  it("does not take the Worker's internal preview header from a client on the app host", async () => {
    const token = new URL(owner.url).hostname.split(".")[0]?.split("-")[2];
    const response = await api("/", { headers: { "X-Cloud-Ide-Preview": `5173 ${token}` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<div id="root">');
  });
});

describe("share links", () => {
  const shares = (port = 5173) => ownerApi(`/api/workspaces/${workspace}/previews/${port}/shares`);

  it("are created, listed, used without a session, and revoked with their sockets closed", async () => {
    const response = await createShare(workspace, 5173, 3600);
    expect(response.status).toBe(201);
    const share = (await response.json()) as ShareLink;
    expect(share.url).not.toBe(owner.url);
    const ttl = Date.parse(share.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(3500_000);
    expect(ttl).toBeLessThanOrEqual(3600_000);

    const listed = (await (await shares()).json()) as { shares: ShareLink[] };
    expect(listed.shares).toContainEqual(share);

    // No cookie at all: the token is the permission.
    expect((await previewRequest(share.url)).status).toBe(200);
    const socket = await previewHmrSocket(share.url);
    await firstMessage(socket);
    const socketClosed = closed(socket);

    const revoked = await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares/${share.id}`, {
      method: "DELETE",
    });
    expect(revoked.status).toBe(204);
    expect(await socketClosed).toBe(1008);
    await expectPreview404(share.url);
    const after = (await (await shares()).json()) as { shares: ShareLink[] };
    expect(after.shares.map((s) => s.id)).not.toContain(share.id);
    // The owner's own preview is untouched.
    expect((await previewRequest(owner.url)).status).toBe(200);

    const again = await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares/${share.id}`, {
      method: "DELETE",
    });
    expect(again.status).toBe(404);
  });

  it("are 404 once expired", async () => {
    const share = (await (await createShare(workspace, 5173)).json()) as ShareLink;
    expect((await previewRequest(share.url)).status).toBe(200);
    const expire = await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares/${share.id}/expire`, {
      method: "POST",
    });
    expect(expire.status).toBe(204);
    await expectPreview404(share.url);
    const listed = (await (await shares()).json()) as { shares: ShareLink[] };
    expect(listed.shares.map((s) => s.id)).not.toContain(share.id);
  });

  it("refuse TTLs outside 5 minutes to 7 days, and bodies that are not JSON", async () => {
    for (const ttlSeconds of [299, 604801, 0, -300, 1.5, "300", null]) {
      const response = await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ttlSeconds }),
      });
      expect(response.status, String(ttlSeconds)).toBe(400);
      expect(await response.json()).toMatchObject({ code: "INVALID_TTL" });
    }
    const plain = await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares`, {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: JSON.stringify({ ttlSeconds: 300 }),
    });
    expect(plain.status).toBe(415);
    for (const ttlSeconds of [300, 604800]) {
      const response = await createShare(workspace, 5173, ttlSeconds);
      expect(response.status, await response.clone().text()).toBe(201);
      const { id } = (await response.json()) as ShareLink;
      await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares/${id}`, { method: "DELETE" });
    }
  });

  it("refuse ports out of range with 400", async () => {
    for (const port of ["80", "1023", "65536", "abc", "5173.0"]) {
      const response = await ownerApi(`/api/workspaces/${workspace}/previews/${port}/shares`);
      expect(response.status, port).toBe(400);
      expect(await response.json()).toMatchObject({ code: "INVALID_PORT" });
    }
  });
});

describe("the preview origin and the app's API", () => {
  it("cannot act with the owner's session from a preview origin", async () => {
    const previewOrigin = new URL(owner.url).origin;
    const shares = async (headers: HeadersInit = {}) => {
      const read = await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares`, { headers });
      return { read, listed: ((await read.json()) as { shares: ShareLink[] }).shares };
    };
    const before = (await shares()).listed;
    const response = await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: previewOrigin },
      body: JSON.stringify({ ttlSeconds: 300 }),
    });
    expect(response.status).toBe(403);
    // And the API grants no CORS access to a preview origin for reads.
    const { read, listed } = await shares({ Origin: previewOrigin });
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
    // The refused request made no link (whatever earlier tests left is still all there is).
    expect(listed).toEqual(before);
  });
});

describe("port detection and the dev server", () => {
  it("lists the dev server's port and its state", async () => {
    const overview = await (await ownerApi(`/api/workspaces/${workspace}/previews`)).json();
    expect(overview).toMatchObject({
      ports: expect.arrayContaining([expect.objectContaining({ port: 5173, loopbackOnly: false })]),
      devServer: { state: "running", command: "npm run dev" },
    });
  });
});

describe("a preview of a workspace that sleeps", () => {
  it("shows a link's holder (and the owner) an 'asleep' page, 503 with Retry-After, and wakes nothing", async () => {
    const id = await createWorkspace("asleep preview");
    const { container } = await wake(id);
    const share = (await (await createShare(id, 5173)).json()) as ShareLink;
    const own = await ownerPreview(id, 5173);
    expect((await post(`/api/workspaces/${id}/stop`)).status).toBe(200);
    expect(isRunning(container)).toBe(false);

    for (const url of [share.url, own.url, new URL("/@vite/client", share.url).toString()]) {
      const response = await previewRequest(url);
      expect(response.status, url).toBe(503);
      expect(Number(response.headers["retry-after"])).toBeGreaterThan(0);
      expect(response.body).toContain("This preview is asleep");
      expect(response.body).not.toContain('<div id="root">');
    }
    // Nothing started: the container is still gone and the workspace still sleeps.
    expect(isRunning(container)).toBe(false);
    expect(await peek(id)).toMatchObject({ state: "sleeping" });
    // A made-up token is still simply not found (the asleep page tells nothing about grants).
    await expectPreview404(relabel(share.url, ({ port, id: ws }) => `${port}-${ws}-${"b".repeat(24)}`));
  });
});

describe("a share link's visitors", () => {
  it("do not keep the workspace awake: it sleeps while they keep requesting and hold a socket", async () => {
    const id = await createWorkspace("share visitors");
    await startTemplateDevServer(id);
    const share = (await (await createShare(id, 5173)).json()) as ShareLink;
    const socket = await previewHmrSocket(share.url);
    await firstMessage(socket);
    // Idle after 3 s, checked every second (test-only timings for this workspace).
    await testHooks(id, { overrides: { idleMs: 3000, checkMs: 1000 } });
    let visiting = true;
    const visits = (async () => {
      while (visiting) {
        await previewRequest(share.url).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    })();
    try {
      const asleep = await waitFor("the workspace to sleep", async () => {
        const status = await peek(id);
        return status.state === "sleeping" ? status : undefined;
      });
      expect(asleep.state).toBe("sleeping");
    } finally {
      visiting = false;
      await visits;
      socket.close();
    }
    // Asleep, the link says so and wakes nothing.
    expect((await previewRequest(share.url)).status).toBe(503);
    expect(await peek(id)).toMatchObject({ state: "sleeping" });
  });
});

describe("signing out everywhere", () => {
  it("ends every preview grant of the user: the panes' URLs and share links", async () => {
    const grace = await accessUser("grace-previews@example.com");
    const as = (init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...grace, ...(init.headers ?? {}) } });
    const created = await api(
      "/api/workspaces",
      as({
        method: "POST",
        body: JSON.stringify({ name: "grace's" }),
        headers: { "Content-Type": "application/json" },
      }),
    );
    const { id } = (await created.json()) as { id: string };
    expect((await api(`/api/workspaces/${id}/wake`, as({ method: "POST" }))).status).toBe(200);
    const pane = (await (
      await api(`/api/workspaces/${id}/previews/5173`, as({ method: "POST" }))
    ).json()) as PreviewAccess;
    const share = (await (
      await api(
        `/api/workspaces/${id}/previews/5173/shares`,
        as({
          method: "POST",
          body: JSON.stringify({ ttlSeconds: 3600 }),
          headers: { "Content-Type": "application/json" },
        }),
      )
    ).json()) as ShareLink;
    // Live: nothing listens on 5173 there, so the Worker's own 502 page (not the 404 of an unknown link).
    expect((await previewRequest(pane.url)).status).toBe(502);
    expect((await previewRequest(share.url)).status).toBe(502);

    expect((await api("/api/sessions", as({ method: "DELETE" }))).status).toBe(204);
    await expectPreview404(pane.url);
    await expectPreview404(share.url);
    // Signed in again through Access (a new token), the workspace is still theirs, with no grants left.
    const again = await accessUser("grace-previews@example.com");
    const left = (await (
      await api(`/api/workspaces/${id}/previews/5173/shares`, { headers: again })
    ).json()) as GrantList;
    expect(left).toEqual({ shares: [], owner: [] });
    expect((await api(`/api/workspaces/${id}`, { method: "DELETE", headers: again })).status).toBe(204);
  });
});
