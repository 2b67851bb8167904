import { execFileSync } from "node:child_process";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { launchBrowser } from "../support/browser";
import { shell, workspaceContainer } from "../support/files";
import { removeWhatWeMade } from "../support/lifecycle";
import { createWorkspace, openWorkspace, ownerApi } from "../support/session";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  removeWhatWeMade();
});

describe("the Backups panel", () => {
  it("backs up, restores with a confirmation (undoable), and a workspace whose snapshot is gone says it moved", async () => {
    const id = await createWorkspace("backups page", "empty");
    const { page, errors } = await openWorkspace(browser, id);
    const state = (value: string) => page.locator(`[data-testid="container-state"][data-state="${value}"]`);
    await state("running").waitFor({ timeout: 60_000 });
    const container = await workspaceContainer(id);
    shell(container, "echo first > /workspace/note.txt");

    // Details: the system image (current) and the machine.
    await page.getByTestId("workspace-details").click();
    expect(await page.getByTestId("image-current").textContent()).toContain("(current)");
    expect(await page.getByTestId("details-machine").textContent()).toMatch(/standard-|lite|basic/);
    await page.getByTestId("workspace-details").click();

    await page.getByTestId("workspace-menu").click();
    await page.getByTestId("backups").click();
    await page.getByTestId("backups-empty").waitFor();
    await page.getByTestId("backup-now").click();
    const rows = page.getByTestId("backup-row");
    await rows.first().waitFor({ timeout: 60_000 });
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain("on demand");

    shell(container, "echo second > /workspace/note.txt");
    const confirmations: string[] = [];
    page.on("dialog", (dialog) => {
      confirmations.push(dialog.message());
      void dialog.accept();
    });
    await rows.first().getByTestId("backup-restore").click();
    // The undo backup joins the list once the restore is done.
    await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(2);
    expect(confirmations[0]).toMatch(/Replace your files .* backed up first/);
    expect(shell(container, "cat /workspace/note.txt")).toBe("first");
    expect(await rows.first().textContent()).toContain("before a restore");

    // Undo: restore the backup taken right before.
    await rows.first().getByTestId("backup-restore").click();
    await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(3);
    expect(shell(container, "cat /workspace/note.txt")).toBe("second");

    // Sleep (a snapshot and a backup), lose the snapshot, wake: the page says where the files came from.
    await page.getByRole("button", { name: "Close backups" }).click();
    await page.getByTestId("workspace-menu").click();
    await page.getByTestId("stop").click();
    await state("sleeping").waitFor({ timeout: 60_000 });
    const asleep = (await (await ownerApi(`/api/workspaces/${id}/status`)).json()) as WorkspaceStatus;
    execFileSync("docker", ["rmi", "-f", `workerd-container-snap-${asleep.snapshotId}`], { stdio: "ignore" });
    await page.getByTestId("wake").click();
    const notice = page.getByTestId("moved-notice");
    await notice.waitFor({ timeout: 120_000 });
    expect(await notice.textContent()).toMatch(/your files were restored from the backup of/);
    await state("running").waitFor({ timeout: 60_000 });
    expect(shell(await workspaceContainer(id), "cat /workspace/note.txt")).toBe("second");
    expect(errors).toEqual([]);
  });
});
