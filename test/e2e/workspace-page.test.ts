import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser";
import { dockerExec, runContainers } from "../support/containers";
import { createWorkspace, openWorkspace } from "../support/session";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe("the workspace page", () => {
  it("shows the running container's state and its uname -a", async () => {
    const id = await createWorkspace();
    const before = new Set(runContainers());
    const { page, errors } = await openWorkspace(browser, id);

    const state = page.getByTestId("container-state");
    await state.and(page.locator('[data-state="running"]')).waitFor({ timeout: 60_000 });
    // The header names the workspace and its state; the details are behind a click.
    expect(await page.getByTestId("workspace-id").isVisible()).toBe(false);
    await page.getByTestId("workspace-details").click();
    await page.getByTestId("container-kernel").waitFor();
    const kernel = await page.getByTestId("container-kernel").textContent();

    const started = runContainers().filter((name) => !before.has(name));
    expect(started).toHaveLength(1);
    expect(kernel).toBe(dockerExec(started[0] as string, ["uname", "-a"]));
    // Files reach it through its resident agent, and the details say so (a fallback would say why it is slower).
    await page.getByTestId("details-file-access").filter({ hasText: "the resident file agent" }).waitFor();
    expect(await page.getByTestId("workspace-id").textContent()).toBe(id);
    expect(await page.getByTestId("workspace-name").inputValue()).toBe(id);
    // The name comes with the workspace list, its own request (tried again after a network change): until then the
    // switcher's option says "Workspace".
    await expect
      .poll(() => page.getByTestId("workspace-name").locator("option:checked").textContent(), { timeout: 15_000 })
      .toBe("test workspace");
    for (const pane of ["pane-files", "pane-editor", "pane-terminal", "pane-preview"]) {
      await page.getByTestId(pane).waitFor({ state: "visible" });
    }
    expect(errors).toEqual([]);
  });
});
