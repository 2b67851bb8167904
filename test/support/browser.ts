import { type Browser, chromium, type Page } from "playwright-core";
import { inject } from "vitest";

/**
 * Flags for Debian's Chromium on these machines: as root (no sandbox), no GPU,
 * and no background connections (the network refuses them).
 */
const CHROMIUM_ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
  });
}

/** Opens a page of the IDE under test and records what goes wrong in it. */
export async function openPage(browser: Browser, path = "/"): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  // Two shared cores run the IDE, its containers and the browser: be patient.
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(new URL(path, inject("baseUrl")).toString());
  return { page, errors };
}
