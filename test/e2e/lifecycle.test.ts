import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, reload } from "../support/browser";
import { runContainers } from "../support/containers";
import { removeWhatWeMade, testHooks } from "../support/lifecycle";
import { createWorkspace, openWorkspace } from "../support/session";
import { connected, typeLine, waitForScreen } from "../support/terminal-page";

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
    const before = new Set(runContainers());
    const { page, errors } = await openWorkspace(browser, id);
    const state = (value: string) => page.locator(`[data-testid="container-state"][data-state="${value}"]`);

    await state("running").waitFor({ timeout: 60_000 });
    const [container] = runContainers().filter((name) => !before.has(name));
    expect(container, "the workspace's container").toBeDefined();
    expect(await page.getByTestId("last-saved").textContent()).toBe("not saved yet");

    await page.getByTestId("save-now").click();
    await page.getByTestId("last-saved").filter({ hasText: "saved just now" }).waitFor({ timeout: 30_000 });

    await page.getByTestId("workspace-menu").click();
    await page.getByText("Running processes").first().waitFor({ state: "visible" });
    expect(await page.getByTestId("export").getAttribute("href")).toBe(`/api/workspaces/${id}/export`);
    await page.getByTestId("stop").click();
    await state("sleeping").waitFor({ timeout: 60_000 });
    // The open terminal says so rather than waking the workspace again.
    await page.locator('[data-testid="connection-status"][data-state="sleeping"]').waitFor();
    await waitForScreen(page, /The workspace is asleep/);
    // Nothing the open page does by itself (the file stream and the terminal
    // reconnecting, the polls) wakes it: its container stays gone. Only a
    // window can show that nothing happens; it spans several reconnects.
    await expect.poll(() => runContainers().includes(container as string), { timeout: 30_000 }).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    expect(runContainers()).not.toContain(container);
    expect(await page.locator('[data-testid="container-state"]').getAttribute("data-state")).toBe("sleeping");

    await page.getByTestId("wake").click();
    await state("running").waitFor({ timeout: 60_000 });
    await connected(page);
    expect(await page.getByTestId("last-saved").textContent()).toBe("saved just now");
    expect(errors).toEqual([]);
  });

  it("exports a sleeping workspace: the export wakes it first", async () => {
    const id = await createWorkspace();
    const { page } = await openWorkspace(browser, id);
    const state = (value: string) => page.locator(`[data-testid="container-state"][data-state="${value}"]`);
    await state("running").waitFor({ timeout: 60_000 });
    await page.getByTestId("workspace-menu").click();
    await page.getByTestId("stop").click();
    await state("sleeping").waitFor({ timeout: 60_000 });

    await page.getByTestId("workspace-menu").click();
    const [archive] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export").click()]);
    expect(archive.suggestedFilename()).toBe(`${id}.tar.gz`);
    expect(await archive.failure()).toBeNull();
    const bytes = readFileSync((await archive.path()) as string);
    // A gzip stream (tar inside), not a JSON error.
    expect([...bytes.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    await state("running").waitFor({ timeout: 60_000 });
  });

  it("says at once what was lost when the container is removed from outside before any save", {
    timeout: 240_000,
  }, async () => {
    const id = await createWorkspace();
    const before = new Set(runContainers());
    const { page, errors } = await openWorkspace(browser, id);
    await connected(page);
    await waitForScreen(page, /\/workspace# /);
    const [container] = runContainers().filter((name) => !before.has(name));
    expect(container, "the workspace's container").toBeDefined();
    expect(await page.getByTestId("loss-notice").count()).toBe(0);
    await typeLine(page, "echo never-saved > unsaved.txt; echo wrote-$((2+3))");
    await waitForScreen(page, /wrote-5/);

    execFileSync("docker", ["rm", "-f", container as string], { stdio: "ignore" });
    const notice = page.getByTestId("loss-notice");
    await notice.waitFor({ timeout: 120_000 });
    expect(await notice.getAttribute("data-from")).toBe("template");
    expect(await notice.textContent()).toMatch(/Nothing had been saved yet/);
    // Dismissed, it stays dismissed after a reload.
    await page.getByTestId("loss-notice-dismiss").click();
    await notice.waitFor({ state: "detached" });
    await reload(page);
    await page.locator('[data-testid="container-state"][data-state="running"]').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId("loss-notice").count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("reconnects an open terminal to a container restored from the last save when the container is removed", {
    timeout: 240_000,
  }, async () => {
    const id = await createWorkspace();
    // A terminal's write reaches the journal within a pass (30 s); here the passes are an hour apart, so the write
    // after the save is lost as one in the last 30 s would be (test/integration/outside-writes.test.ts keeps one).
    await testHooks(id, { overrides: { outsideWritesMs: 3_600_000 } });
    const before = new Set(runContainers());
    const { page, errors } = await openWorkspace(browser, id);
    await connected(page);
    await waitForScreen(page, /\/workspace# /);
    const [container] = runContainers().filter((name) => !before.has(name));
    expect(container, "the workspace's container").toBeDefined();

    await typeLine(page, "echo kept-$((40+2)) > kept.txt");
    await page.getByTestId("save-now").click();
    await page.getByTestId("last-saved").filter({ hasText: "saved just now" }).waitFor({ timeout: 30_000 });
    await typeLine(page, "echo lost > lost.txt; echo wrote-$((1+1))");
    await waitForScreen(page, /wrote-2/);

    // The page notes the moment its terminal leaves "connected": a restore from the snapshot can take under
    // half a second, too short for a locator's polling to see the state in between.
    await page.evaluate(() => {
      const seen = window as unknown as { leftConnected?: boolean };
      seen.leftConnected = false;
      const check = () => {
        const status = document.querySelector('[data-testid="connection-status"]');
        if (status?.getAttribute("data-state") !== "connected") seen.leftConnected = true;
      };
      new MutationObserver(check).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    execFileSync("docker", ["rm", "-f", container as string], { stdio: "ignore" });
    // The terminal notices, reconnects by itself and the workspace comes back
    // (a start that fails on the way is tried again after a pause).
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { leftConnected?: boolean }).leftConnected), {
        timeout: 60_000,
      })
      .toBe(true);
    await connected(page, 120_000);
    await waitForScreen(page, /\/workspace# /);
    await typeLine(page, "cat kept.txt; ls lost.txt");
    const after = await waitForScreen(page, /No such file or directory/);
    expect(after).toMatch(/kept-42/);
    expect(after).toMatch(/cannot access 'lost.txt'/);
    const notice = page.getByTestId("loss-notice");
    await notice.waitFor({ timeout: 30_000 });
    expect(await notice.getAttribute("data-from")).toBe("snapshot");
    expect(await notice.textContent()).toMatch(/came back from the last save/);
    expect(errors).toEqual([]);
  });
});
