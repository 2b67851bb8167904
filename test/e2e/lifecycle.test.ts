import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser";
import { removeWhatWeMade } from "../support/lifecycle";
import { createWorkspace, openWorkspace } from "../support/session";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  removeWhatWeMade();
});

describe("saving and sleeping from the header", () => {
  it("saves now, sleeps, says processes do not survive, and wakes again", async () => {
    const id = await createWorkspace();
    const { page, errors } = await openWorkspace(browser, id);
    const state = (value: string) => page.locator(`[data-testid="container-state"][data-state="${value}"]`);

    await state("running").waitFor({ timeout: 60_000 });
    expect(await page.getByTestId("last-saved").textContent()).toBe("not saved yet");

    await page.getByTestId("save-now").click();
    await page.getByTestId("last-saved").filter({ hasText: "saved just now" }).waitFor({ timeout: 30_000 });

    await page.getByTestId("workspace-menu").click();
    expect(await page.getByText("Running processes").first().isVisible()).toBe(true);
    expect(await page.getByTestId("export").getAttribute("href")).toBe(`/api/workspaces/${id}/export`);
    await page.getByTestId("stop").click();
    await state("sleeping").waitFor({ timeout: 60_000 });

    await page.getByTestId("wake").click();
    await state("running").waitFor({ timeout: 60_000 });
    expect(await page.getByTestId("last-saved").textContent()).toBe("saved just now");
    expect(errors).toEqual([]);
  });
});
