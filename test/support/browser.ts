import type { Browser, BrowserContextOptions, Page, Response } from "playwright-core";
import { inject } from "vitest";
import { launchChromium } from "../../scripts/lib/chromium.mjs";

export async function launchBrowser(): Promise<Browser> {
  return launchChromium();
}

/** Opens a page of the IDE under test and records what goes wrong in it. */
export async function openPage(
  browser: Browser,
  path = "/",
  options: BrowserContextOptions = {},
): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, ...options });
  // Two shared cores run the IDE, its containers and the browser: be patient.
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await navigate(page, path);
  return { page, errors };
}

/**
 * Chromium fails every request in flight when the host's network interfaces
 * change, and Docker adds one (a veth) for each container it starts, even
 * requests to localhost: on this machine, 35 of 40 fetches in flight while
 * one `docker run` started failed with net::ERR_NETWORK_CHANGED. The browser
 * shares the host's network with Docker (it must reach the IDE on loopback),
 * so it cannot be shielded from that. A page load that met such a change (and
 * only such a change) is tried again; any other failure is not.
 */
async function retryOnNetworkChange<T>(load: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await load();
    } catch (error) {
      // The failed load shows as ERR_NETWORK_CHANGED, or as the navigation
      // being "interrupted" by Chromium's own error page.
      if (attempt >= 3 || !isNetworkChange(String(error))) throw error;
    }
  }
}

/**
 * Whether an error text or a URL shows a load that met a network change. A load
 * "interrupted by another navigation" met one too: a module of the page failed
 * with the change and the page's own boot script reloaded it (public/), under
 * the load being waited for (once in CI, right as a new workspace's container started).
 */
function isNetworkChange(text: string): boolean {
  return (
    text.includes("ERR_NETWORK_CHANGED") ||
    text.includes("chrome-error://") ||
    text.includes("is interrupted by another navigation")
  );
}

/** `page.goto` of a path (or URL) of the IDE under test. */
export function navigate(page: Page, path: string): Promise<Response | null> {
  return retryOnNetworkChange(() => page.goto(new URL(path, inject("baseUrl")).toString()));
}

/**
 * Waits until a page shows `selector`. A fresh page loads the whole app from the dev server, which on
 * a loaded machine can take longer than one wait, or fail (the page then says it could not load its
 * code): such a load is tried again, as a person would reload it, three times at most.
 */
export async function untilShown(page: Page, selector: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const shown = await page
      .locator(selector)
      .first()
      .waitFor({ timeout: 60_000 })
      .then(
        () => true,
        () => false,
      );
    if (shown) return;
    if (attempt === 4)
      throw new Error(`the page never showed ${selector}; it shows: ${await page.locator("body").textContent()}`);
    await reload(page);
  }
}

/**
 * Loads the app once in a page of its own and closes it, for a file whose tests open several pages:
 * a first load can still find the dev server compiling, and waits (and reloads) here, not in a test.
 */
export async function loadAppOnce(browser: Browser): Promise<void> {
  const { page } = await openPage(browser, "/");
  await untilShown(page, '[data-testid="sign-in"], [data-testid="workspace-list"]');
  await page.context().close();
}

/** `page.reload`. */
export function reload(page: Page): Promise<Response | null> {
  return retryOnNetworkChange(() => page.reload());
}

/**
 * Whether the host's network changed under the page since this was called:
 * a request failed with ERR_NETWORK_CHANGED, or the page landed on Chromium's
 * error page. For tests of the page's own reloads, which `reload()` cannot
 * retry: an attempt that met such a change proves nothing either way.
 */
export function networkChanges(page: Page): () => boolean {
  let changed = false;
  page.on("requestfailed", (request) => {
    if (isNetworkChange(request.failure()?.errorText ?? "")) changed = true;
  });
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame() && isNetworkChange(frame.url())) changed = true;
  });
  return () => changed;
}
