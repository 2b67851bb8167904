/**
 * The Network panel, as a person uses it: a blocked npm request shows in the
 * log, one click allows its host, and the same command works at once. The
 * only outside host reached is the npm registry.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser";
import { createWorkspace, openWorkspace, ownerApi } from "../support/session";
import { connected, screen, typeLine } from "../support/terminal-page";

/** Where the panel's screenshot is left (with the layout tests' ones). */
const SCREENSHOTS = join(process.cwd(), "test-results", "screenshots");

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function setPolicy(id: string, policy: { mode: string; allow: string[] }): Promise<void> {
  const response = await ownerApi(`/api/workspaces/${id}/network`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(policy),
  });
  expect(response.status).toBe(200);
}

/** The terminal's screen with wrapped lines joined and all spacing dropped (a wrap can fall on a space). */
async function waitForText(page: Page, text: string, timeout = 60_000): Promise<void> {
  const squeeze = (value: string) => value.replace(/\s+/g, "");
  await expect.poll(async () => squeeze(await screen(page)), { timeout, interval: 250 }).toContain(squeeze(text));
}

describe("the Network panel", () => {
  it("shows npm's blocked request and allows its host in one click, without a restart", async () => {
    const id = await createWorkspace("network panel");
    await setPolicy(id, { mode: "allowlist", allow: ["pypi.org"] });
    const { page, errors } = await openWorkspace(browser, id);
    await connected(page);

    await page.getByTestId("network-button").click();
    const panel = page.getByTestId("network-panel");
    await panel.waitFor();
    expect(await panel.getByTestId("network-mode-allowlist").isChecked()).toBe(true);
    expect(await panel.getByTestId("allowed-host").allTextContents()).toEqual(["pypi.org×"]);

    await typeLine(page, "clear; npm view react version --prefer-online");
    await waitForText(page, "registry.npmjs.org is not on this workspace's allow list");
    const blocked = panel.locator('[data-testid="log-row"][data-host="registry.npmjs.org"][data-verdict="blocked"]');
    await blocked.first().waitFor();
    await blocked.first().getByTestId("allow-blocked").click();
    await panel.locator('[data-testid="allowed-host"][data-host="registry.npmjs.org"]').waitFor();

    await typeLine(page, "clear; npm view react version --prefer-online && echo VIEW-OK");
    await waitForText(page, "VIEW-OK");
    await panel
      .locator('[data-testid="log-row"][data-host="registry.npmjs.org"][data-verdict="allowed"]')
      .first()
      .waitFor();
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, "network-panel.png") });
    expect(errors).toEqual([]);
  });

  it("says the log is empty in the open mode because nothing is intercepted", async () => {
    const id = await createWorkspace("open network panel");
    await setPolicy(id, { mode: "open", allow: [] });
    const { page, errors } = await openWorkspace(browser, id);
    await connected(page);
    await page.getByTestId("network-button").click();
    const panel = page.getByTestId("network-panel");
    expect(await panel.getByTestId("network-mode-open").isChecked()).toBe(true);
    expect(await panel.getByTestId("request-log-empty").textContent()).toContain("Nothing is intercepted");
    // Adding a host is checked as it is typed, before anything is sent.
    await panel.getByTestId("allow-input").fill("https://example.com/");
    await panel.getByRole("button", { name: "Allow", exact: true }).click();
    expect(await panel.getByRole("alert").textContent()).toMatch(/without scheme/);
    expect(errors).toEqual([]);
  });
});
