import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { WorkspaceSummary } from "../../protocol/workspaces";
import { launchBrowser, navigate, networkChanges, openPage, reload } from "../support/browser";
import { ownerApi, ownerSessionEnded } from "../support/session";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

// First in the file: before this file's workspaces start and stop containers.
describe("loading the app", () => {
  it("tries again when a piece of its code fails to download", async () => {
    // Docker adding or removing a container's network interface fails the
    // page's own reloads too; such an attempt is made again (at most 3).
    for (let attempt = 1; ; attempt++) {
      const context = await browser.newContext();
      context.setDefaultTimeout(60_000);
      const page = await context.newPage();
      const networkChanged = networkChanges(page);
      let dropped = "";
      // Drop the first module the entry point imports, once, as a network blip would.
      await page.route(/\/app\/(?!main\.tsx).*\.tsx?(\?.*)?$/, async (route) => {
        if (dropped) return route.continue();
        dropped = route.request().url();
        await route.abort("internetdisconnected");
      });
      try {
        await navigate(page, "/");
        await page.getByTestId("sign-in").waitFor();
      } catch (error) {
        const url = page.url();
        await context.close();
        if (networkChanged() && attempt < 3) continue;
        throw new Error(`the app did not load (at ${url}, network changed: ${networkChanged()})`, { cause: error });
      }
      expect(dropped).not.toBe("");
      expect(await page.evaluate(() => sessionStorage.getItem("cloud-ide:boot-retries"))).toBeNull();
      await context.close();
      return;
    }
  }, 240_000);
});

describe("signing in and managing workspaces", () => {
  it("signs in, creates two workspaces, opens one, signs out and is sent back to sign-in", async () => {
    const { page, errors } = await openPage(browser, "/");
    await page.getByTestId("sign-in").waitFor();

    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").getByText("That password is not right.").waitFor();

    await page.getByLabel("Password").fill(inject("password"));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByTestId("workspace-list").waitFor();
    expect(await page.getByTestId("user-id").textContent()).toBe("owner");

    const suffix = Date.now().toString(36);
    const names = [`first ${suffix}`, `second ${suffix}`];
    for (const name of names) {
      await navigate(page, "/");
      await page.getByLabel("New workspace").fill(name);
      await page.getByRole("button", { name: "Create" }).click();
      // Creating opens the new workspace.
      await page.waitForURL(/\/workspaces\/[a-z0-9]{16}$/);
    }
    await navigate(page, "/");
    for (const name of names) await page.getByRole("button", { name }).waitFor();
    // Each workspace shows its state and its last save (read without waking it).
    for (const name of names) {
      const item = page.locator('[data-testid="workspace-item"]').filter({ hasText: name });
      await item.getByTestId("container-state").waitFor();
      expect(await item.getByTestId("container-state").getAttribute("data-state")).toMatch(
        /^(running|starting|stopped)$/,
      );
      expect(await item.getByTestId("workspace-last-saved").textContent()).toMatch(/^not saved yet · created /);
    }

    await page.getByRole("button", { name: names[0] }).click();
    await page.waitForURL(/\/workspaces\/[a-z0-9]{16}$/);
    const id = new URL(page.url()).pathname.split("/")[2];
    expect(await page.getByTestId("workspace-id").textContent()).toBe(id);
    await page.locator('[data-testid="container-state"][data-state="running"]').waitFor({ timeout: 60_000 });

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByTestId("sign-in").waitFor();
    // The session is really gone: a reload still shows sign-in.
    await reload(page);
    await page.getByTestId("sign-in").waitFor();
    expect(errors).toEqual([]);
  });

  it("lists the sessions in the user menu, ends another browser's, and signs out everywhere", async () => {
    const signIn = async () => {
      const opened = await openPage(browser, "/");
      await opened.page.getByLabel("Password").fill(inject("password"));
      await opened.page.getByRole("button", { name: "Sign in" }).click();
      await opened.page.getByTestId("workspace-list").waitFor();
      return opened.page;
    };
    const first = await signIn();
    const second = await signIn();
    const third = await signIn();

    await first.getByRole("button", { name: "Sessions" }).click();
    const list = first.getByTestId("session-list");
    // This browser is marked; the other two can be ended.
    await list.locator('[data-testid="session"][data-current="true"]').getByText("this browser").waitFor();
    expect(await list.locator('[data-testid="session"][data-current="false"]').count()).toBeGreaterThanOrEqual(2);
    expect(await list.getByText(/Chrome on Linux/).count()).toBeGreaterThanOrEqual(3);

    // End the newest other session: that is the third browser's (listed by last use).
    const before = await list.locator('[data-testid="session"]').count();
    await list
      .locator('[data-testid="session"][data-current="false"]')
      .first()
      .getByRole("button", { name: "End" })
      .click();
    await expect.poll(() => list.locator('[data-testid="session"]').count()).toBe(before - 1);
    await reload(third);
    await third.getByTestId("sign-in").waitFor();

    // Sign out everywhere from the first: the second is signed out too.
    await list.getByRole("button", { name: "Sign out everywhere" }).click();
    // That ended this file's own owner session too (test/support/session.ts).
    ownerSessionEnded();
    await first.getByTestId("sign-in").waitFor();
    await reload(second);
    await second.getByTestId("sign-in").waitFor();
  });

  it("renames a workspace and deletes one after confirming", async () => {
    const { page } = await openPage(browser, "/");
    await page.getByLabel("Password").fill(inject("password"));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByTestId("workspace-list").waitFor();

    const name = `rename me ${Date.now().toString(36)}`;
    await page.getByLabel("New workspace").fill(name);
    await page.getByRole("button", { name: "Create" }).click();
    await page.waitForURL(/\/workspaces\/[a-z0-9]{16}$/);
    const id = new URL(page.url()).pathname.split("/")[2];
    await page.getByRole("button", { name: "Cloud IDE" }).click();
    const item = page.locator(`[data-testid="workspace-item"][data-workspace-id="${id}"]`);
    await item.getByRole("button", { name: "Rename", exact: true }).click();
    await item.getByLabel("Workspace name").fill(`${name} renamed`);
    await item.getByRole("button", { name: "Save" }).click();
    await item.getByRole("button", { name: `${name} renamed` }).waitFor();
    // Renamed where it is kept, not only on the page.
    const listed = async () =>
      ((await (await ownerApi("/api/workspaces")).json()) as WorkspaceSummary[]).find((w) => w.id === id);
    expect((await listed())?.name).toBe(`${name} renamed`);

    await item.getByRole("button", { name: "Delete", exact: true }).click();
    await item.getByRole("button", { name: "Delete for good" }).click();
    await item.waitFor({ state: "detached" });
    expect(await listed()).toBeUndefined();
    expect((await ownerApi(`/api/workspaces/${id}/status?wake=0`)).status).toBe(404);
  });
});
