/**
 * A Vite page asks the preview for dozens of modules at once on every load,
 * and a reload asks conditionally for each (304 Not Modified). Every one of
 * them must get the dev server's answer: this loads the template app through
 * its preview hostname again and again, as a user reloading and opening tabs
 * does, and fails on any 5xx answer or failed request.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, networkChanges, reload } from "../support/browser";
import { createWorkspace, openWorkspace, ownerApi } from "../support/session";

const RELOADS = 8;
const NEW_TABS = 7;

let browser: Browser;
let workspace: string | undefined;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  if (workspace) await ownerApi(`/api/workspaces/${workspace}`, { method: "DELETE" });
  await browser?.close();
});

/** Records every answer and failed request of the preview's origin in the pages of `context`. */
function recordProblems(context: BrowserContext, origin: string) {
  const problems: string[] = [];
  let answers = 0;
  const watch = (page: Page) => {
    page.on("response", (response) => {
      if (!response.url().startsWith(origin)) return;
      answers++;
      if (response.status() >= 500) problems.push(`${response.status()} ${response.url()}`);
    });
    page.on("requestfailed", (request) => {
      if (request.url().startsWith(origin)) problems.push(`${request.failure()?.errorText} ${request.url()}`);
    });
  };
  context.on("page", watch);
  return { problems, answers: () => answers };
}

/** Waits until the app rendered and its code runs (the counter counts), then until the page is quiet. */
async function rendered(page: Page): Promise<void> {
  await page.getByText("Hello from your workspace").waitFor({ timeout: 30_000 });
  await page.getByRole("button", { name: /Clicked \d+ times/ }).click();
  await page.getByRole("button", { name: "Clicked 1 times" }).waitFor();
  // Nothing in flight when the next reload starts, so no request is cut off by it.
  await page.waitForLoadState("networkidle");
}

describe("loading the template app through its preview", () => {
  it(`completes every request over ${RELOADS + 1 + NEW_TABS} loads (reloads and new tabs)`, async () => {
    workspace = await createWorkspace("preview page loads");
    // Start the dev server with the preview pane's Run button, as a user would.
    const { page: ide } = await openWorkspace(browser, workspace);
    const pane = ide.getByTestId("pane-preview");
    await pane.getByTestId("preview-run").click({ timeout: 60_000 });
    const frame = ide.getByTestId("preview-frame");
    await frame.waitFor({ timeout: 120_000 });
    const previewUrl = (await frame.getAttribute("src")) ?? "";
    expect(previewUrl).toMatch(/^http:\/\/5173-/);
    await ide.context().close();

    // A visitor with the owner's preview link: a context of its own, no IDE session.
    const context = await browser.newContext();
    context.setDefaultTimeout(60_000);
    const { problems, answers } = recordProblems(context, new URL(previewUrl).origin);
    let loads = 0;
    const tab = await context.newPage();
    await tab.goto(previewUrl);
    await rendered(tab);
    loads++;
    for (let i = 0; i < RELOADS; i++) {
      await tab.reload();
      await rendered(tab);
      loads++;
    }
    for (let i = 0; i < NEW_TABS; i++) {
      const another = await context.newPage();
      await another.goto(previewUrl);
      await rendered(another);
      loads++;
    }
    expect(loads).toBe(RELOADS + 1 + NEW_TABS);
    // Each load asks for the page, its modules and styles: far more than one answer per load.
    expect(answers()).toBeGreaterThan(loads * 5);
    expect(problems).toEqual([]);
    await context.close();
  }, 300_000);

  it("waits on its own for a dev server that is not answering yet, and shows the app once it does", async () => {
    const id = await createWorkspace("preview waits for its server");
    try {
      // Awake, with nothing listening on 5173 yet (a preview never wakes a workspace itself).
      expect((await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" })).status).toBe(200);
      const grant = await ownerApi(`/api/workspaces/${id}/previews/5173`, { method: "POST" });
      const { url } = (await grant.json()) as { url: string };
      const context = await browser.newContext();
      context.setDefaultTimeout(60_000);
      const page = await context.newPage();
      const changed = networkChanges(page);
      const first = await page.goto(url);
      expect(first?.status()).toBe(502);
      await page.getByText("Nothing is answering on port 5173").waitFor();
      await page.getByText("This page reloads by itself when it answers.").waitFor();

      const started = await ownerApi(`/api/workspaces/${id}/previews/dev-server`, { method: "POST" });
      expect(started.status).toBe(200);
      // No reload from the test: the page notices the server and loads the app.
      const app = page.getByText("Hello from your workspace");
      const shown = await app.waitFor({ timeout: 120_000 }).then(
        () => true,
        () => false,
      );
      if (!shown) {
        const showing = `${page.url()}: ${(await page.locator("body").textContent().catch(String))?.slice(0, 300)}`;
        // A module load that met a network change (Chromium fails the requests in flight when Docker adds a
        // container's interface, test/support/browser.ts) leaves the app blank: that attempt proves nothing
        // either way, so the page is loaded again, as a person would. Any other blank page fails here.
        if (!changed()) throw new Error(`the page never showed the app, and no network change explains it: ${showing}`);
        console.log(`the page's own load met a network change and shows ${showing}: loading it again`);
        await reload(page);
        await app.waitFor({ timeout: 120_000 });
      }
      await context.close();
    } finally {
      await ownerApi(`/api/workspaces/${id}`, { method: "DELETE" });
    }
  }, 300_000);
});
