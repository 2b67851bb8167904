/**
 * Co-editing (issue 24), in two browser contexts as two people: the owner
 * and a guest who joined by an invite link as an editor. Both type in the
 * same file and end with the same text; each sees the other's cursor with
 * their name; undo undoes only one's own edits; a reload in the middle loses
 * nothing; a save by one shows saved in the other; a change from the
 * terminal appears in both editors; made a viewer, the guest cannot type.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { MemberList } from "../../protocol/members";
import { launchBrowser, openPage, reload } from "../support/browser";
import { filesUrl, putFile } from "../support/files";
import { createInvite } from "../support/guests";
import { createWorkspace, ownerApi } from "../support/session";
import { connected, hook, typeLine } from "../support/terminal-page";

let browser: Browser;
let id: string;

beforeAll(async () => {
  browser = await launchBrowser();
  id = await createWorkspace("co-editing", "empty");
  expect((await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" })).status).toBe(200);
  expect((await putFile(id, "pair.txt", "line one\n")).status).toBe(200);
  // A first page load makes the dev server transform the whole app: done once, here.
  const { page } = await openPage(browser, "/");
  await page.locator('[data-testid="sign-in"], [data-testid="workspace-list"]').first().waitFor({ timeout: 120_000 });
  await page.context().close();
}, 300_000);

afterAll(async () => {
  await browser?.close();
});

/**
 * Waits until a page shows `selector`. A fresh page loads the whole app from the dev server, which on
 * a loaded machine can take longer than one wait: such a load is tried again, three times at most.
 */
async function loaded(page: Page, selector: string, errors: string[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const shown = await page
      .locator(selector)
      .first()
      .waitFor({ timeout: 60_000 })
      .then(
        () => true,
        () => false,
      );
    if (shown) return;
    if (attempt === 4) {
      throw new Error(
        `the page never showed ${selector}; it shows: ${await page.locator("body").textContent()}; errors: ${errors.join("; ")}`,
      );
    }
    await reload(page);
  }
}

/** The editor's document (app/test-hooks.ts). */
function editorText(page: Page): Promise<string | undefined> {
  return hook<string | undefined>(page, "editorText");
}

const tab = (page: Page, path: string) => page.locator(`[data-testid="editor-tab"][data-path="${path}"]`);

async function openFile(page: Page, path: string): Promise<void> {
  await page.locator(`[data-testid="file-tree"] [data-path="${path}"]`).click();
  await expect.poll(() => tab(page, path).count(), { timeout: 30_000 }).toBe(1);
}

async function diskText(path: string): Promise<string> {
  return (await ownerApi(filesUrl(id, "/content", { path }))).text();
}

/** The names on the other people's cursors in this page's editor. */
async function cursorNames(page: Page): Promise<string[]> {
  return page.locator('[data-testid="code-editor"] .cm-ySelectionInfo').allTextContents();
}

describe("two people in one file", () => {
  it("type, see each other, undo their own, reload, save, see the terminal's change; a viewer cannot type", async () => {
    const { page: owner, errors: ownerErrors } = await openPage(browser, `/workspaces/${id}`);
    await loaded(owner, '[data-testid="sign-in"], [data-testid="workspace-name"]', ownerErrors);
    if (await owner.getByTestId("sign-in").isVisible()) {
      await owner.getByLabel("Password").fill(inject("password"));
      await owner.getByRole("button", { name: "Sign in" }).click();
      await owner.waitForURL(`**/workspaces/${id}`);
    }
    await loaded(owner, '[data-testid="workspace-name"]', ownerErrors);
    const invite = await createInvite(id, { role: "editor", ttlSeconds: 3600 });
    const { page: guest, errors: guestErrors } = await openPage(
      browser,
      new URL(invite.url).pathname + new URL(invite.url).hash,
    );
    await loaded(guest, '[data-testid="join-invitation"]', guestErrors);
    await guest.getByLabel("Your name (the others see it)").fill("Grace Hopper");
    await guest.getByRole("button", { name: "Join" }).click();
    await guest.waitForURL(`**/workspaces/${id}`);

    // A terminal takes the keyboard when it opens: both are open before anyone types in the editor.
    await connected(owner);
    await connected(guest);
    await openFile(owner, "pair.txt");
    await openFile(guest, "pair.txt");
    await expect.poll(() => editorText(owner), { timeout: 30_000 }).toBe("line one\n");
    await expect.poll(() => editorText(guest), { timeout: 30_000 }).toBe("line one\n");

    // Both type at once: the owner at the end, the guest at the start.
    await owner.locator('[data-testid="code-editor"] .cm-content').click();
    await owner.keyboard.press("Control+End");
    await guest.locator('[data-testid="code-editor"] .cm-content').click();
    await guest.keyboard.press("Control+Home");
    await Promise.all([owner.keyboard.type("owner typed"), guest.keyboard.type("guest typed ")]);
    const both = "guest typed line one\nowner typed";
    await expect
      .poll(async () => [await editorText(owner), await editorText(guest)], { timeout: 30_000 })
      .toEqual([both, both]);

    // Each sees the other's cursor with their name.
    await expect.poll(() => cursorNames(owner), { timeout: 30_000 }).toContain("Grace Hopper");
    await expect.poll(() => cursorNames(guest), { timeout: 30_000 }).toContain("owner");

    // The owner's undo takes back the owner's typing only.
    for (let i = 0; i < 20 && (await editorText(owner))?.includes("owner typed"); i++) {
      await owner.keyboard.press("Control+z");
    }
    const undone = "guest typed line one\n";
    await expect.poll(() => editorText(owner), { timeout: 30_000 }).toBe(undone);
    await expect.poll(() => editorText(guest), { timeout: 30_000 }).toBe(undone);

    // The guest reloads in the middle, with nothing saved: the shared text is all there.
    await guest.locator('[data-testid="code-editor"] .cm-content').click();
    await guest.keyboard.press("Control+Home");
    await guest.keyboard.type("again ");
    const beforeReload = "again guest typed line one\n";
    await expect
      .poll(async () => [await editorText(guest), await editorText(owner)], { timeout: 30_000 })
      .toEqual([beforeReload, beforeReload]);
    await reload(guest);
    await connected(guest);
    await openFile(guest, "pair.txt");
    await expect.poll(() => editorText(guest), { timeout: 30_000 }).toBe(beforeReload);
    expect(await diskText("pair.txt")).toBe("line one\n");

    // Unsaved in both tabs; the guest saves, and both show it saved.
    await expect.poll(() => tab(owner, "pair.txt").getAttribute("data-dirty"), { timeout: 30_000 }).toBe("true");
    await expect.poll(() => tab(guest, "pair.txt").getAttribute("data-dirty"), { timeout: 30_000 }).toBe("true");
    await guest.locator('[data-testid="code-editor"] .cm-content').click();
    await guest.keyboard.press("Control+s");
    await expect.poll(() => tab(guest, "pair.txt").getAttribute("data-dirty"), { timeout: 30_000 }).toBe("false");
    await expect.poll(() => tab(owner, "pair.txt").getAttribute("data-dirty"), { timeout: 30_000 }).toBe("false");
    expect(await diskText("pair.txt")).toBe(beforeReload);

    // A change from the terminal appears in both editors, and both stay saved.
    await connected(owner);
    await typeLine(owner, "echo 'from the terminal' >> pair.txt");
    const withTerminal = `${beforeReload}from the terminal\n`;
    await expect.poll(() => editorText(owner), { timeout: 30_000 }).toBe(withTerminal);
    await expect.poll(() => editorText(guest), { timeout: 30_000 }).toBe(withTerminal);
    await expect.poll(() => tab(owner, "pair.txt").getAttribute("data-dirty"), { timeout: 30_000 }).toBe("false");
    await expect.poll(() => tab(guest, "pair.txt").getAttribute("data-dirty"), { timeout: 30_000 }).toBe("false");

    // Made a viewer, the guest cannot type in the shared file.
    const members = (await (await ownerApi(`/api/workspaces/${id}/members`)).json()) as MemberList;
    const member = members.members.find((m) => m.name === "Grace Hopper");
    expect(member).toBeDefined();
    const demoted = await ownerApi(`/api/workspaces/${id}/members/${encodeURIComponent(member?.id ?? "")}`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ role: "viewer" }),
    });
    expect(demoted.status).toBe(200);
    await reload(guest);
    await guest.getByTestId("shared-mark").waitFor();
    await expect
      .poll(() => guest.getByTestId("shared-mark").textContent(), { timeout: 30_000 })
      .toBe("Shared · viewer");
    await connected(guest);
    await openFile(guest, "pair.txt");
    await expect.poll(() => editorText(guest), { timeout: 30_000 }).toBe(withTerminal);
    await guest.locator('[data-testid="code-editor"] .cm-content').click();
    await guest.keyboard.type("viewer typed");
    expect(await guest.locator('[data-testid="code-editor"] .cm-content').getAttribute("contenteditable")).toBe(
      "false",
    );
    // The owner keeps typing: the viewer sees it live, and nothing of theirs arrived.
    await owner.locator('[data-testid="code-editor"] .cm-content').click();
    await owner.keyboard.press("Control+End");
    await owner.keyboard.type("owner after");
    const last = `${withTerminal}owner after`;
    await expect.poll(() => editorText(guest), { timeout: 30_000 }).toBe(last);
    expect(await editorText(owner)).toBe(last);

    expect(ownerErrors).toEqual([]);
    expect(guestErrors).toEqual([]);
    await owner.context().close();
    await guest.context().close();
  }, 300_000);
});
