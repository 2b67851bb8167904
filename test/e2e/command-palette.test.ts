import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser";
import { shell, workspaceContainer } from "../support/files";
import { createWorkspace, openWorkspace } from "../support/session";

// Keys typed right after a shortcut belong to what it opens. Quick open, a
// search result and go to definition each give the editor the keyboard once
// the file they open has loaded; a person who presses Ctrl+Shift+P before
// that (a slow network, a large file) must still type into the palette, and
// Escape must close it. The test holds the file's read until the palette is
// open, so the late focus comes at a known moment.

let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

beforeEach(async () => {
  const id = await createWorkspace("palette focus e2e", "empty");
  const container = await workspaceContainer(id);
  shell(
    container,
    "mkdir -p /workspace/src && cd /workspace/src && printf 'export const alpha = 1;\\n' > alpha.ts && " +
      "printf 'export const beta = 2;\\n' > beta.ts",
  );
  ({ page, errors } = await openWorkspace(browser, id));
  await page.locator('[data-testid="connection-status"][data-state="connected"]').waitFor();
});
afterEach(async () => {
  await page?.context().close();
});

const picker = () => page.getByRole("dialog");
const palette = () => picker().getByRole("combobox", { name: "Run a command" });
const content = () => page.locator('[data-testid="code-editor"] .cm-content');

/** Where the keyboard is: a picker's input, the editor, or something else. */
const keyboardAt = () =>
  page.evaluate(() => {
    const active = document.activeElement;
    if (active?.closest('[role="dialog"]')) return `dialog: ${active.getAttribute("aria-label")}`;
    if (active?.closest(".cm-editor")) return "editor";
    return active?.getAttribute("data-testid") ?? active?.tagName ?? "none";
  });

/** Holds the reads of a file's bytes until the returned function is called. */
async function holdRead(path: string): Promise<() => void> {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(
    (url) => url.pathname.endsWith("/files/content") && url.searchParams.get("path") === path,
    async (route) => {
      await held;
      await route.continue();
    },
  );
  return release;
}

/** Ctrl+Shift+P while `path` is still opening; the file then loads; the palette keeps the keys and closes on Escape. */
async function paletteWhileOpening(path: string, release: () => void) {
  await page.keyboard.press("Control+Shift+P");
  await palette().waitFor();
  await page.keyboard.type("save");
  release();
  await page.locator(`[data-testid="editor-tab"][data-path="${path}"][aria-selected="true"]`).waitFor();
  await content().waitFor();
  // The file has loaded (and asked for the keyboard): what is typed next is still the palette's.
  await expect.poll(() => content().textContent()).toContain("export const");
  const text = await content().textContent();
  await page.keyboard.type(" all");
  await expect.poll(() => palette().inputValue()).toBe("save all");
  expect(await keyboardAt()).toBe("dialog: Run a command");
  expect(await content().textContent()).toBe(text);
  await page.keyboard.press("Escape");
  await expect.poll(() => picker().count()).toBe(0);
  expect(await page.locator('[data-testid="editor-tab"][data-dirty="true"]').count()).toBe(0);
}

describe("the command palette opened while a file is still opening", () => {
  it("after quick open: keeps the keys typed next, and Escape closes it", async () => {
    const release = await holdRead("src/beta.ts");
    await page.locator('[data-testid="file-tree"] [role="tree"]').click();
    await page.keyboard.press("Control+P");
    await picker().getByRole("combobox", { name: "Go to file" }).waitFor();
    // With a line, as a person jumping to a place would type it.
    await page.keyboard.type("beta:1");
    await expect.poll(() => picker().getByRole("option").first().textContent()).toBe("beta.tssrc/");
    await page.keyboard.press("Enter");
    await expect.poll(() => picker().count()).toBe(0);
    await paletteWhileOpening("src/beta.ts", release);
    expect(errors).toEqual([]);
  });

  it("after a click on a search result: keeps the keys typed next, and Escape closes it", async () => {
    const release = await holdRead("src/alpha.ts");
    await page.keyboard.press("Control+Shift+F");
    await expect.poll(keyboardAt).toBe("search-input");
    await page.keyboard.type("const alpha");
    const match = page.locator('[data-testid="search-match"][data-path="src/alpha.ts"]').first();
    await match.waitFor();
    await match.click();
    await paletteWhileOpening("src/alpha.ts", release);
    expect(errors).toEqual([]);
  });
});
