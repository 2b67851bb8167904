import { execFileSync } from "node:child_process";
import type { Browser, Dialog, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MACHINES } from "../../protocol/workspace";
import { launchBrowser, reload } from "../support/browser";
import { shell, workspaceContainer } from "../support/files";
import { peek, removeWhatWeMade } from "../support/lifecycle";
import { createWorkspace, openWorkspace, ownerApi } from "../support/session";
import { connected, typeLine, waitForScreen } from "../support/terminal-page";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  removeWhatWeMade();
});

/** The memory limit (bytes) and CPU (nano CPUs) Docker gives a container. */
function limits(container: string): { memory: number; cpus: number } {
  const out = execFileSync("docker", ["inspect", "-f", "{{.HostConfig.Memory}} {{.HostConfig.NanoCpus}}", container]);
  const [memory, cpus] = out.toString().trim().split(" ").map(Number);
  return { memory: memory ?? 0, cpus: cpus ?? 0 };
}

/** The Docker limits a machine size stands for (protocol/workspace.ts MACHINES). */
function limitsOf(machine: keyof typeof MACHINES): { memory: number; cpus: number } {
  const spec = MACHINES[machine];
  return { memory: spec.memoryGiB * 1024 ** 3, cpus: spec.vcpu * 1e9 };
}

/** Answers the next confirmation the page asks (accepting or not) and gives back its text. */
function nextDialog(page: Page, accept: boolean): Promise<string> {
  return new Promise((resolve) => {
    page.once("dialog", (dialog: Dialog) => {
      resolve(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    });
  });
}

describe("the machine size in Details", () => {
  it("changes as a user picks it: a restart prompt, then the new size in Details and in Docker's limits, files kept", async () => {
    const id = await createWorkspace("machine size page", "empty");
    const { page, errors } = await openWorkspace(browser, id);
    const state = (value: string) => page.locator(`[data-testid="container-state"][data-state="${value}"]`);
    await state("running").waitFor({ timeout: 60_000 });
    await connected(page);

    // Something made before the change, as a user would: typed in the terminal.
    await typeLine(page, "echo made-before-$((20+1)) > /workspace/before.txt && echo written");
    await waitForScreen(page, /^written$/m);
    const before = await workspaceContainer(id);
    expect(shell(before, "cat /workspace/before.txt")).toBe("made-before-21");
    expect(limits(before)).toEqual(limitsOf("standard-1"));

    await page.getByTestId("workspace-details").click();
    const select = page.getByTestId("machine-select");
    expect(await select.inputValue()).toBe("standard-1");
    const standard2 = await select.locator('option[value="standard-2"]').textContent();
    expect(standard2).toBe("standard-2: 1 vCPU, 6 GiB memory, 12 GB disk");

    // Saying no to the prompt changes nothing.
    const declined = nextDialog(page, false);
    await select.selectOption("standard-3");
    expect(await declined).toMatch(/restarts the workspace/);
    expect(await select.inputValue()).toBe("standard-1");
    expect(await (await ownerApi(`/api/workspaces/${id}/settings`)).json()).toEqual({ machine: "standard-1" });

    // Saying yes restarts on the new size; the page says so while it does.
    const accepted = nextDialog(page, true);
    await select.selectOption("standard-2");
    expect(await accepted).toMatch(
      /^Change the machine to standard-2 \(1 vCPU, 6 GiB memory, 12 GB disk\)\? This restarts the workspace: .*files are kept/,
    );
    await page.getByTestId("machine-busy").waitFor();
    expect(await page.getByTestId("machine-busy").textContent()).toContain("Restarting on standard-2");
    await page.getByTestId("machine-busy").waitFor({ state: "detached", timeout: 180_000 });
    expect(await page.getByTestId("machine-error").count()).toBe(0);
    await state("running").waitFor({ timeout: 60_000 });
    expect(await select.inputValue()).toBe("standard-2");

    // After a reload, Details still says standard-2.
    await reload(page);
    await state("running").waitFor({ timeout: 60_000 });
    await page.getByTestId("workspace-details").click();
    expect(await page.getByTestId("machine-select").inputValue()).toBe("standard-2");

    // The real container has standard-2's memory and CPU, and the file made before.
    const after = await workspaceContainer(id);
    expect(limits(after)).toEqual(limitsOf("standard-2"));
    expect(shell(after, "cat /workspace/before.txt")).toBe("made-before-21");
    expect(await peek(id)).toMatchObject({ state: "running", system: { machine: "standard-2" } });

    // The terminal reconnects to the restarted workspace and sees the file too.
    await page.getByTestId("workspace-details").click();
    await connected(page);
    await typeLine(page, "cat /workspace/before.txt");
    await waitForScreen(page, /^made-before-21$/m);
    expect(errors).toEqual([]);
  });

  it("can be chosen while the workspace sleeps: no restart, and it starts on the new size when woken", async () => {
    const id = await createWorkspace("machine size asleep page", "empty");
    const { page, errors } = await openWorkspace(browser, id);
    const state = (value: string) => page.locator(`[data-testid="container-state"][data-state="${value}"]`);
    await state("running").waitFor({ timeout: 60_000 });
    expect((await ownerApi(`/api/workspaces/${id}/stop`, { method: "POST" })).status).toBe(200);
    await state("sleeping").waitFor({ timeout: 60_000 });

    await page.getByTestId("workspace-details").click();
    const select = page.getByTestId("machine-select");
    await expect.poll(() => select.inputValue(), { timeout: 30_000 }).toBe("standard-1");
    const accepted = nextDialog(page, true);
    await select.selectOption("standard-2");
    expect(await accepted).toMatch(
      /^Change the machine to standard-2 .*not running: it starts on the new machine next time/,
    );
    await page.getByTestId("machine-busy").waitFor({ state: "detached", timeout: 60_000 });
    expect(await page.getByTestId("machine-error").count()).toBe(0);
    // The page's re-read of the state renders after the change's answer.
    await expect.poll(() => select.inputValue(), { timeout: 30_000 }).toBe("standard-2");
    // Nothing woke it.
    expect(await state("sleeping").count()).toBe(1);
    expect(await peek(id)).toMatchObject({ state: "sleeping", machine: "standard-2" });

    // A wake starts it on standard-2.
    expect((await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" })).status).toBe(200);
    expect(limits(await workspaceContainer(id))).toEqual(limitsOf("standard-2"));
    expect(errors).toEqual([]);
  });
});
