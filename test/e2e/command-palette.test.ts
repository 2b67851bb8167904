import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser";
import { createWorkspace, openWorkspace } from "../support/session";

// Keys typed right after a shortcut belong to what it opens: the command
// palette, opened after the editor was reached by go to definition, quick open
// and a search in files (each of which gives the editor the keyboard), takes
// the keys typed next, and Escape closes it.

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await page?.context().close();
});

const row = (path: string) => page.locator(`[data-testid="file-tree"] [data-path="${path}"]`);
const activeTab = () => page.locator('[data-testid="editor-tab"][aria-selected="true"]').getAttribute("data-path");
const content = () => page.locator('[data-testid="code-editor"] .cm-content');
const picker = () => page.getByRole("dialog");
const options = () => picker().getByRole("option");

/** Puts the cursor on the first occurrence of `text` (plus `offset` characters) and gives the editor the keyboard. */
async function cursorAt(text: string, offset = 0) {
  await page.evaluate(
    ({ text, offset }) => {
      type View = { state: { doc: { toString(): string } }; dispatch(spec: unknown): void; focus(): void };
      const element = document.querySelector('[data-testid="code-editor"] .cm-content') as
        | (HTMLElement & { cmTile?: { root?: { view?: View } } })
        | null;
      const view = element?.cmTile?.root?.view;
      if (!view) throw new Error("no CodeMirror view");
      const index = view.state.doc.toString().indexOf(text);
      if (index === -1) throw new Error(`"${text}" is not in the editor`);
      view.dispatch({ selection: { anchor: index + offset } });
      view.focus();
    },
    { text, offset },
  );
}

/** Where the keyboard is: the palette's input, the editor, or something else. */
const keyboardAt = () =>
  page.evaluate(() => {
    const active = document.activeElement;
    if (active?.closest('[role="dialog"]')) return `dialog: ${active.getAttribute("aria-label")}`;
    if (active?.closest(".cm-editor")) return "editor";
    return active?.getAttribute("data-testid") ?? active?.tagName ?? "none";
  });

describe("the command palette after the editor had the keyboard", () => {
  it("takes the keys typed after Ctrl+Shift+P (after go to definition, quick open and a search), and Escape closes it", {
    timeout: 300_000,
  }, async () => {
    const id = await createWorkspace("palette focus e2e");
    ({ page } = await openWorkspace(browser, id));
    await row("src").waitFor({ timeout: 60_000 });
    await row("src").click();
    await row("src/main.tsx").click();
    await content().waitFor();
    await expect
      .poll(
        () =>
          page.locator('[data-testid="language-server-state"][data-server="typescript"]').getAttribute("data-state"),
        { timeout: 90_000 },
      )
      .toBe("ready");

    // Go to definition (F12) of <App in main.tsx: App.tsx opens at the function.
    await expect
      .poll(
        async () => {
          // A jump may land after the wait: then App.tsx is open already, and pressing again would look in it.
          if ((await activeTab()) === "src/App.tsx") return "src/App.tsx";
          await cursorAt("<App", 2);
          await page.keyboard.press("F12");
          await page.waitForTimeout(500);
          return activeTab();
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe("src/App.tsx");
    await expect.poll(() => page.locator(".cm-activeLine").textContent()).toContain("export function App");

    // Quick open: main.tsx again.
    await page.keyboard.press("Control+P");
    await picker().getByRole("combobox", { name: "Go to file" }).waitFor();
    await page.keyboard.type("main.tsx");
    await expect.poll(() => options().first().textContent()).toBe("main.tsxsrc/");
    await page.keyboard.press("Enter");
    await expect.poll(activeTab).toBe("src/main.tsx");

    // Search in files, and a click on a match in App.tsx.
    await page.keyboard.press("Control+Shift+F");
    await expect.poll(keyboardAt).toBe("search-input");
    await page.keyboard.type("export function App");
    const match = page.locator('[data-testid="search-match"][data-path="src/App.tsx"]').first();
    await match.waitFor();
    await match.click();
    await expect.poll(activeTab).toBe("src/App.tsx");
    await expect.poll(keyboardAt).toBe("editor");
    const before = await content().textContent();

    // The palette: what is typed next is its query, not text in App.tsx.
    await page.keyboard.press("Control+Shift+P");
    await page.keyboard.type("save all");
    const input = picker().getByRole("combobox", { name: "Run a command" });
    await expect.poll(() => input.inputValue()).toBe("save all");
    expect(await keyboardAt()).toBe("dialog: Run a command");
    expect(await options().first().textContent()).toContain("Save all files");
    expect(await content().textContent()).toBe(before);
    await page.keyboard.press("Escape");
    await expect.poll(() => picker().count()).toBe(0);
    expect(await keyboardAt()).toBe("editor");
    expect(await page.locator('[data-testid="editor-tab"][data-dirty="true"]').count()).toBe(0);
  });
});
