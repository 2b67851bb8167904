/**
 * Co-editing (issue 24), in two browser contexts acting as people: the owner
 * and a guest invited as an editor open the same file, which is one shared
 * document. Both type and end with the same text; each sees the other's
 * cursor with their name; Ctrl+Z takes back only one's own edit; reloading
 * both pages loses no unsaved edit; a save by one shows the file saved to
 * the other; a change made in the terminal shows in both editors.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, loadAppOnce, reload, untilShown } from "../support/browser";
import { putFile, shell, workspaceContainer } from "../support/files";
import { joinInBrowser } from "../support/guest-page";
import { createWorkspace, openWorkspace, ownerApi } from "../support/session";
import { connected, hook, typeLine } from "../support/terminal-page";

let browser: Browser;
let id: string;
let container: string;
let owner: Page;
let guest: Page;
const errors: { owner: string[]; guest: string[] } = { owner: [], guest: [] };

beforeAll(async () => {
  browser = await launchBrowser();
  id = await createWorkspace("co-editing", "empty");
  expect((await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" })).status).toBe(200);
  expect((await putFile(id, "notes.txt", "line one\nline two\n")).status).toBe(200);
  container = await workspaceContainer(id);
  await loadAppOnce(browser);
}, 300_000);

afterAll(async () => {
  await browser?.close();
});

const treeRow = (page: Page, path: string) => page.locator(`[data-testid="file-tree"] [data-path="${path}"]`);
const tab = (page: Page, path: string) => page.locator(`[data-testid="editor-tab"][data-path="${path}"]`);
/** The document the editor shows (without the others' cursors, which are widgets in it). */
const text = (page: Page) => hook<string | undefined>(page, "editorText");
const content = (page: Page) => page.locator('[data-testid="code-editor"] .cm-content');

/** Opens notes.txt from the tree and waits until it shows as a shared document. */
async function openNotes(page: Page) {
  await treeRow(page, "notes.txt").click();
  await tab(page, "notes.txt").and(page.locator('[data-shared="true"]')).waitFor();
  await expect.poll(() => text(page), { timeout: 30_000 }).toContain("line one");
}

/** Puts the keyboard's cursor at the end of a line (1-based) of the editor. */
async function cursorToEndOf(page: Page, line: number) {
  await content(page).click();
  await page.keyboard.press("Control+Home");
  for (let i = 1; i < line; i++) await page.keyboard.press("ArrowDown");
  await page.keyboard.press("End");
}

describe("co-editing", () => {
  it("the owner and an invited editor type in the same file and both end with the same text", async () => {
    ({ page: owner, errors: errors.owner } = await openWorkspace(browser, id));
    await connected(owner);
    ({ page: guest, errors: errors.guest } = await joinInBrowser(browser, id, "editor", "Ada Lovelace"));

    await openNotes(owner);
    await openNotes(guest);
    await cursorToEndOf(owner, 1);
    await cursorToEndOf(guest, 2);
    // At the same time, each in their own line.
    await Promise.all([owner.keyboard.type(" by owner"), guest.keyboard.type(" by Ada")]);
    const both = "line one by owner\nline two by Ada\n";
    await expect.poll(() => text(owner), { timeout: 30_000 }).toBe(both);
    await expect.poll(() => text(guest), { timeout: 30_000 }).toBe(both);
    // Nothing is saved yet: both tabs say so.
    for (const page of [owner, guest]) {
      await expect.poll(() => tab(page, "notes.txt").getAttribute("data-dirty"), { timeout: 30_000 }).toBe("true");
    }
    expect(shell(container, "cat /workspace/notes.txt")).toBe("line one\nline two");
  }, 300_000);

  it("shows each the other's cursor with their name", async () => {
    const caretNamed = (page: Page, name: string) =>
      page.locator(".cm-ySelectionCaret .cm-ySelectionInfo", { hasText: name });
    await caretNamed(owner, "Ada Lovelace").waitFor({ state: "attached" });
    await caretNamed(guest, "owner").waitFor({ state: "attached" });
    // Where the other one's cursor is: the guest's at the end of line two, in the owner's editor.
    const caretLine = await owner
      .locator(".cm-line", { has: owner.locator(".cm-ySelectionCaret") })
      .evaluate((line) => {
        const copy = line.cloneNode(true) as HTMLElement;
        for (const caret of Array.from(copy.querySelectorAll(".cm-ySelectionCaret"))) caret.remove();
        return copy.textContent;
      });
    expect(caretLine).toBe("line two by Ada");
  }, 120_000);

  it("undoes only one's own edit", async () => {
    // The shared undo (Y.UndoManager) takes one person's edits less than 500 ms apart as one step, as editors
    // do: this edit is a step of its own, not one with the " by owner" typed at the end of the first test.
    await owner.waitForTimeout(600);
    await cursorToEndOf(owner, 1);
    await owner.keyboard.insertText(" OWNER-UNDO");
    await expect.poll(() => text(guest), { timeout: 30_000 }).toContain("OWNER-UNDO");
    await cursorToEndOf(guest, 2);
    await guest.keyboard.insertText(" GUEST-KEEPS");
    await expect.poll(() => text(owner), { timeout: 30_000 }).toContain("GUEST-KEEPS");

    // The owner's last edit was before the guest's: Ctrl+Z takes back the owner's, not the guest's.
    await content(owner).click();
    await owner.keyboard.press("Control+z");
    const after = "line one by owner\nline two by Ada GUEST-KEEPS\n";
    await expect.poll(() => text(owner), { timeout: 30_000 }).toBe(after);
    await expect.poll(() => text(guest), { timeout: 30_000 }).toBe(after);
  }, 120_000);

  it("loses no unsaved edit when both pages reload", async () => {
    const expected = await text(owner);
    await reload(owner);
    await reload(guest);
    for (const page of [owner, guest]) {
      await untilShown(page, '[data-testid="workspace-name"]');
      await openNotes(page);
      await expect.poll(() => text(page), { timeout: 30_000 }).toBe(expected);
      // Still not saved.
      await expect.poll(() => tab(page, "notes.txt").getAttribute("data-dirty"), { timeout: 30_000 }).toBe("true");
    }
    expect(shell(container, "cat /workspace/notes.txt")).toBe("line one\nline two");
  }, 240_000);

  it("a save by one shows the file saved to the other", async () => {
    await content(guest).click();
    await guest.keyboard.press("Control+s");
    await expect.poll(() => tab(guest, "notes.txt").getAttribute("data-dirty"), { timeout: 30_000 }).toBe("false");
    await expect.poll(() => tab(owner, "notes.txt").getAttribute("data-dirty"), { timeout: 30_000 }).toBe("false");
    expect(shell(container, "cat /workspace/notes.txt")).toBe("line one by owner\nline two by Ada GUEST-KEEPS");
  }, 120_000);

  it("shows a change made in the terminal in both editors", async () => {
    await connected(owner);
    await typeLine(owner, "echo from-the-terminal >> notes.txt");
    const expected = "line one by owner\nline two by Ada GUEST-KEEPS\nfrom-the-terminal\n";
    await expect.poll(() => text(owner), { timeout: 30_000 }).toBe(expected);
    await expect.poll(() => text(guest), { timeout: 30_000 }).toBe(expected);
    // The disk and the shared text agree: saved, in both.
    for (const page of [owner, guest]) {
      await expect.poll(() => tab(page, "notes.txt").getAttribute("data-dirty"), { timeout: 30_000 }).toBe("false");
    }
    expect(await owner.getByTestId("conflict-bar").count()).toBe(0);
    expect(await guest.getByTestId("conflict-bar").count()).toBe(0);

    expect(errors.owner).toEqual([]);
    expect(errors.guest).toEqual([]);
    await owner.context().close();
    await guest.context().close();
  }, 120_000);
});
