// A new workspace as a person makes one: they name it in the list, click
// Create, and the IDE opens on a running container whose terminal answers.
// The container started while they typed the name (the spare, POST
// /api/workspaces/spare): the workspace is that container, no second one.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { SpareWorkspace } from "../../protocol/workspaces";
import { launchBrowser, openPage } from "../support/browser";
import { dockerExec, runContainers } from "../support/containers";
import { ownerApi } from "../support/session";
import { connected, typeLine, waitForScreen } from "../support/terminal-page";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe("a new workspace", () => {
  it("opens on the container that started while its name was typed, and its terminal answers", async () => {
    const { page, errors } = await openPage(browser, "/");
    await page.getByLabel("Password").fill(inject("password"));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByTestId("workspace-list").waitFor();

    const before = new Set(runContainers());
    const spareAnswer = page.waitForResponse((r) => r.url().endsWith("/api/workspaces/spare"));
    const name = `typed ${Date.now().toString(36)}`;
    await page.getByLabel("New workspace").click();
    const spare = (await (await spareAnswer).json()) as SpareWorkspace;
    await page.keyboard.type(name);
    await page.getByRole("button", { name: "Create" }).click();
    await page.waitForURL(/\/workspaces\/[a-z0-9]{16}$/);
    const id = new URL(page.url()).pathname.split("/")[2];
    expect(id).toBe(spare.id);

    await connected(page);
    await typeLine(page, "uname -a; echo made-$((6 * 7))");
    const shown = await waitForScreen(page, /made-42/);
    const started = runContainers().filter((container) => !before.has(container));
    expect(started).toHaveLength(1);
    // The terminal is that container's: its uname names the container's host.
    expect(shown).toContain(dockerExec(started[0] as string, ["uname", "-n"]));
    // Its template and name, as any new workspace's.
    expect(dockerExec(started[0] as string, ["ls", "/workspace"]).split("\n")).toContain("package.json");
    await page.getByRole("button", { name: "Cloud IDE" }).click();
    await page.getByRole("button", { name }).waitFor();
    expect(errors).toEqual([]);
    expect((await ownerApi(`/api/workspaces/${id}`, { method: "DELETE" })).status).toBe(204);
  });
});
