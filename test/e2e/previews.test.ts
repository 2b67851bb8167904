import type { Browser, Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ShareLink } from "../../protocol/previews";
import { launchBrowser, navigate, reload, untilShown } from "../support/browser";
import { dockerExec, runContainers } from "../support/containers";
import { createWorkspace, openWorkspace, ownerApi } from "../support/session";

let browser: Browser;
let workspace: string;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  if (workspace) await ownerApi(`/api/workspaces/${workspace}/previews/dev-server`, { method: "DELETE" });
  await browser?.close();
});

async function previewFrame(page: Page): Promise<Frame> {
  const element = await page.getByTestId("preview-frame").elementHandle({ timeout: 120_000 });
  const frame = await element?.contentFrame();
  if (!frame) throw new Error("the preview frame has no document");
  return frame;
}

/** Opens a URL in a fresh browser context: no cookies, no session. */
async function openAsStranger(url: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const response = await navigate(page, url);
  return { context, page, status: response?.status() };
}

describe("previewing the template's dev server", () => {
  it("runs it, hot-reloads an edit without a reload, shares it, and revokes and expires the links", async () => {
    workspace = await createWorkspace("previews e2e");
    const before = new Set(runContainers());
    // A load that meets a network change is tried again (openPage); any other failure fails the test.
    const { page, errors } = await openWorkspace(browser, workspace);
    const pane = page.getByTestId("pane-preview");

    // Nothing listens yet: the pane says so (and offers a Run button).
    await pane.getByTestId("preview-empty").waitFor({ timeout: 60_000 });
    expect(await pane.getByTestId("preview-empty").textContent()).toContain("Nothing is listening on port 5173");
    await pane.getByTestId("preview-run").waitFor({ state: "visible" });

    // Start the template's dev server from the terminal, as a user would.
    await page.locator('[data-testid="connection-status"][data-state="connected"]').waitFor({ timeout: 60_000 });
    await page.locator('.terminal-view:not(.inactive) [data-testid="terminal"]').click();
    await page.keyboard.type("npm run dev");
    await page.keyboard.press("Enter");

    const frame = await previewFrame(page);
    await frame.getByText("Hello from your workspace").waitFor({ timeout: 60_000 });
    const previewOrigin = new URL(frame.url()).origin;
    expect(previewOrigin).toMatch(new RegExp(`^http://5173-${workspace}-[a-z0-9]{24}\\.localhost:${inject("port")}$`));

    // Hot reload: edit src/App.tsx and the page changes while its window lives on.
    await frame.evaluate(() => {
      (window as unknown as { beforeEdit: number }).beforeEdit = 42;
    });
    // Edit src/App.tsx in the IDE's editor and save.
    const tree = (path: string) => page.locator(`[data-testid="file-tree"] [data-path="${path}"]`);
    await tree("src").click();
    await tree("src/App.tsx").click();
    const editor = page.locator('[data-testid="code-editor"] .cm-content');
    await expect.poll(() => editor.textContent(), { timeout: 30_000 }).toContain("Hello from your workspace");
    const [container] = runContainers().filter((name) => !before.has(name));
    if (!container) throw new Error("no container for the workspace");
    const source = dockerExec(container, ["cat", "/workspace/src/App.tsx"]);
    await editor.click();
    await page.keyboard.press("Control+a");
    // insertText: one input, so the editor's bracket closing and indenting leave the code as it is.
    await page.keyboard.insertText(`${source.replace("Hello from your workspace", "Hello after an edit")}\n`);
    await page.keyboard.press("Control+s");
    await expect
      .poll(() => dockerExec(container, ["cat", "/workspace/src/App.tsx"]), { timeout: 20_000 })
      .toContain("Hello after an edit");
    await frame.getByText("Hello after an edit").waitFor({ timeout: 30_000 });
    expect(await frame.evaluate(() => (window as unknown as { beforeEdit?: number }).beforeEdit)).toBe(42);

    // The preview's origin cannot use the app's API with the owner's session.
    const apiUrl = new URL(`/api/workspaces/${workspace}/previews/5173/shares`, inject("baseUrl")).toString();
    const read = await frame.evaluate(async (url) => {
      try {
        await fetch(url, { credentials: "include" });
        return "read";
      } catch {
        return "blocked";
      }
    }, apiUrl);
    expect(read).toBe("blocked");
    await frame.evaluate(async (url) => {
      // A "simple" request needs no preflight; the API must still refuse it.
      await fetch(url, {
        method: "POST",
        mode: "no-cors",
        credentials: "include",
        headers: { "Content-Type": "text/plain" },
        body: JSON.stringify({ ttlSeconds: 604800 }),
      }).catch(() => undefined);
    }, apiUrl);
    const afterAttempt = (await (await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares`)).json()) as {
      shares: ShareLink[];
    };
    expect(afterAttempt.shares).toEqual([]);

    // Share: a link a stranger can open without signing in.
    await pane.getByTestId("preview-share").click();
    await pane.getByTestId("share-ttl").selectOption("3600");
    await pane.getByTestId("share-create").click();
    const item = pane.getByTestId("share-item");
    await item.waitFor();
    const shareUrl = await item.getByTestId("share-url").inputValue();
    expect(new URL(shareUrl).origin).not.toBe(previewOrigin);
    expect(await item.getByTestId("share-time-left").textContent()).toMatch(/^(59m|1h 0m) left$/);

    const stranger = await openAsStranger(shareUrl);
    expect(stranger.status).toBe(200);
    // A module load that met a container's start (a network change) leaves the page blank: reloaded as a person would.
    await untilShown(stranger.page, "text=Hello after an edit");

    // Revoke: the same URL is 404 at once.
    await item.getByTestId("share-revoke").click();
    await item.waitFor({ state: "detached" });
    const revoked = await reload(stranger.page);
    expect(revoked?.status()).toBe(404);
    expect(await stranger.page.textContent("h1")).toBe("This preview does not exist");
    await stranger.context.close();

    // An expired link is 404 too (the test hook moves its expiry to the past).
    const created = await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ttlSeconds: 300 }),
    });
    const share = (await created.json()) as ShareLink;
    const live = await openAsStranger(share.url);
    expect(live.status).toBe(200);
    await live.context.close();
    const expire = await ownerApi(`/api/workspaces/${workspace}/previews/5173/shares/${share.id}/expire`, {
      method: "POST",
    });
    expect(expire.status).toBe(204);
    const expired = await openAsStranger(share.url);
    expect(expired.status).toBe(404);
    await expired.context.close();

    // The owner's own preview still works, and the IDE page had no errors.
    await frame.getByText("Hello after an edit").waitFor();
    expect(errors).toEqual([]);
    // One user journey of many steps, each waiting on a real container: longer than the default.
  }, 300_000);
});
