// Chromium for the browser benchmarks, and the IDE opened in it as the signed-in owner.
export { launchChromium } from "../../scripts/lib/chromium.mjs";

/**
 * A new page in its own context with the session's cookie, on workspace `id`,
 * once its terminal says connected (the IDE is then in use, as a person sees it).
 * @param {import("playwright-core").Browser} browser
 * @param {string} baseUrl
 * @param {{ cookie: string }} session from signIn()
 * @param {string} id
 */
export async function openIdePage(browser, baseUrl, session, id) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const [name, value] = session.cookie.split("=");
  await context.addCookies([{ name, value, url: baseUrl }]);
  const page = await context.newPage();
  await page.goto(new URL(`/workspaces/${id}`, baseUrl).toString());
  await page.locator('[data-testid="connection-status"][data-state="connected"]').waitFor({ timeout: 120_000 });
  return page;
}
