/** The terminal of an open workspace page, as an e2e test sees and types into it. */
import type { Page } from "playwright-core";
import { expect } from "vitest";

declare global {
  interface Window {
    /** Test hooks the app installs (app/terminal/registry.ts). */
    __cloudIde?: Record<string, unknown>;
  }
}

/** Calls a test hook of the app (app/terminal/registry.ts) in the page. */
export function hook<T>(page: Page, name: string): Promise<T> {
  return page.evaluate((hookName) => {
    const fn = window.__cloudIde?.[hookName];
    if (typeof fn !== "function") throw new Error(`the app has no test hook ${hookName}`);
    return fn() as T;
  }, name);
}

/** What the active terminal shows on screen. */
export function screen(page: Page): Promise<string> {
  return hook<string>(page, "terminalText");
}

export async function waitForScreen(page: Page, pattern: RegExp, timeout = 30_000): Promise<string> {
  await expect.poll(() => screen(page), { timeout, interval: 200 }).toMatch(pattern);
  return screen(page);
}

export async function connected(page: Page, timeout = 60_000): Promise<void> {
  try {
    await page.locator('[data-testid="connection-status"][data-state="connected"]').waitFor({ timeout });
  } catch (error) {
    // Say what the page showed instead: which state, and the terminal's last lines.
    const state = (testId: string) =>
      page
        .getByTestId(testId)
        .first()
        .getAttribute("data-state", { timeout: 1000 })
        .catch(() => "(none)");
    const lines = await screen(page).then(
      (text) => text.trimEnd().split("\n").slice(-8).join("\n"),
      () => "(unreadable)",
    );
    throw new Error(
      `the terminal did not connect within ${timeout / 1000} s: connection ${await state("connection-status")}, container ${await state("container-state")}; the screen ends with:\n${lines}`,
      { cause: error },
    );
  }
}

/** Types a line into the active terminal like a user, then presses Enter. */
export async function typeLine(page: Page, text: string): Promise<void> {
  await page.locator('.terminal-view:not(.inactive) [data-testid="terminal"]').click();
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
}
