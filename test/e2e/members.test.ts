/**
 * Two people, one workspace (issue 24), in two browser contexts: the owner
 * makes an invite link in the Share panel, a guest opens it, names
 * themselves, and lands in the workspace marked as shared; as a viewer they
 * see the file and the owner's terminal but can type in neither.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, loadAppOnce, openPage, untilShown } from "../support/browser";
import { putFile } from "../support/files";
import { createWorkspace, openWorkspace, ownerApi } from "../support/session";
import { connected, screen, typeLine, waitForScreen } from "../support/terminal-page";

let browser: Browser;
let id: string;

beforeAll(async () => {
  browser = await launchBrowser();
  id = await createWorkspace("pair", "empty");
  expect((await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" })).status).toBe(200);
  expect((await putFile(id, "notes.txt", "shared notes\n")).status).toBe(200);
  await loadAppOnce(browser);
}, 300_000);

afterAll(async () => {
  await browser?.close();
});

const editorText = (page: Page) => page.locator('[data-testid="code-editor"] .cm-content').textContent();

describe("an invited viewer", () => {
  it("opens the owner's link, names themselves, sees the shared workspace and cannot type in it", async () => {
    const { page: owner, errors: ownerErrors } = await openWorkspace(browser, id);
    await connected(owner);
    await owner.getByTestId("share-button").click();
    await owner.getByLabel("Invite role").selectOption("viewer");
    await owner.getByRole("button", { name: "Make an invite link" }).click();
    const url = await owner.getByTestId("invite-url").inputValue();
    expect(url).toContain(`/join/${id}#`);

    // The guest: another browser context, nobody signed in.
    const { page: guest, errors: guestErrors } = await openPage(browser, new URL(url).pathname + new URL(url).hash);
    await untilShown(guest, '[data-testid="join-invitation"]');
    expect(await guest.getByTestId("join-invitation").textContent()).toContain("pair");
    await guest.getByLabel("Your name (the others see it)").fill("Grace Hopper");
    await guest.getByRole("button", { name: "Join" }).click();
    await guest.waitForURL(`**/workspaces/${id}`);
    expect(await guest.getByTestId("shared-mark").textContent()).toBe("Shared · viewer");
    expect(await guest.getByTestId("user-id").textContent()).toBe("Grace Hopper");
    // No Share button for a member.
    expect(await guest.getByTestId("share-button").count()).toBe(0);
    // Nor the owner's Agents… (MCP tokens) and Backups… (they hold /root), nor an agent panel (an agent
    // writes): the menu has none of them.
    await guest.getByTestId("workspace-menu").click();
    await guest.getByTestId("export").waitFor();
    expect(await guest.getByTestId("backups").count()).toBe(0);
    expect(await guest.getByTestId("agents-open").count()).toBe(0);
    expect(await guest.getByTestId("agent-chat-open").count()).toBe(0);
    await guest.getByTestId("workspace-menu").click();

    // The file opens, and typing changes nothing.
    await guest.locator('[data-testid="file-tree"] [data-path="notes.txt"]').click();
    await expect.poll(() => editorText(guest), { timeout: 30_000 }).toContain("shared notes");
    await guest.locator('[data-testid="code-editor"] .cm-content').click();
    await guest.keyboard.type("typed by the viewer");
    expect(await guest.locator('[data-testid="code-editor"] .cm-content').getAttribute("contenteditable")).toBe(
      "false",
    );
    expect(await editorText(guest)).not.toContain("typed by the viewer");

    // The owner's terminal shows in the guest's page; the guest's keystrokes are refused.
    await connected(guest);
    await typeLine(owner, "echo owner-says-$((20+3))");
    await waitForScreen(guest, /owner-says-23/);
    // The tabs say it lasting (a note inside the terminal can be drawn over by tmux), and typing changes nothing.
    expect(await guest.getByTestId("terminal-read-only").textContent()).toBe("Read-only");
    expect(await owner.getByTestId("terminal-read-only").count()).toBe(0);
    await typeLine(guest, "echo guest-says-hello");
    await typeLine(owner, "echo owner-again-$((30+4))");
    await waitForScreen(owner, /owner-again-34/);
    expect(await screen(owner)).not.toContain("guest-says-hello");

    // The owner's Share panel lists the guest.
    await owner.getByTestId("share-button").click();
    await owner.getByTestId("share-button").click();
    await owner.getByTestId("member-list").getByText("Grace Hopper").waitFor();

    // The guest's list: this workspace only, marked as shared, and nothing to create.
    await guest.goto(new URL("/", url).toString());
    await guest.getByTestId("workspace-list").waitFor();
    const items = guest.getByTestId("workspace-item");
    await items.first().waitFor();
    expect(await items.count()).toBe(1);
    expect(await items.first().getByTestId("shared-mark").textContent()).toBe("Shared · viewer");
    expect(await guest.getByLabel("New workspace").count()).toBe(0);

    expect(ownerErrors).toEqual([]);
    expect(guestErrors).toEqual([]);
    await owner.context().close();
    await guest.context().close();
  }, 240_000);
});
