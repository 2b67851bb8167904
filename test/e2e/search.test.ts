import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser";
import { shell, workspaceContainer } from "../support/files";
import { createWorkspace, openWorkspace } from "../support/session";

// Search in files, quick open, the command palette and go to line, driven
// with the keyboard as a person would, from a page whose terminal has the
// keyboard (where the page puts it when it opens).

let browser: Browser;
let page: Page;
let errors: string[];
let container: string;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** How long a poll waits: a search or the file list reads a fresh container, on a loaded machine (expect.poll's
 * own default is 1 s). */
const patient = { timeout: 30_000 };

const lines = (...text: string[]) => text.map((line) => `${line}\\n`).join("");

beforeEach(async () => {
  const id = await createWorkspace("search e2e", "empty");
  container = await workspaceContainer(id);
  shell(
    container,
    "mkdir -p /workspace/src/deep /workspace/docs /workspace/node_modules/lib && cd /workspace && " +
      `printf '${lines("one", "two", "const findme = 1;")}' > src/alpha.ts && ` +
      `printf '${lines("a", "b", "c", "d", "e", "f", "  return findme;  // seven")}' > src/deep/beta.ts && ` +
      `printf '${lines("# Gamma", "Find findme here")}' > docs/gamma.md && ` +
      "printf 'findme\\n' > node_modules/lib/index.js",
  );
  ({ page, errors } = await openWorkspace(browser, id));
  await page.locator('[data-testid="connection-status"][data-state="connected"]').waitFor();
});
afterEach(async () => {
  await page?.context().close();
});

/** The editor's active file and the text of the line the cursor is on. */
async function cursorAt(path: string, text: string) {
  await page.locator(`[data-testid="editor-tab"][data-path="${path}"][aria-selected="true"]`).waitFor();
  await expect.poll(() => page.locator('[data-testid="code-editor"] .cm-activeLine').textContent(), patient).toBe(text);
}

const picker = () => page.getByRole("dialog");
const options = () => picker().getByRole("option");

describe("search in files", () => {
  it("Ctrl+Shift+F from the terminal finds a string in three files; a click opens the second at its line", async () => {
    await page.keyboard.press("Control+Shift+F");
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid")))
      .toBe("search-input");
    await page.keyboard.type("findme");
    await expect.poll(() => page.getByTestId("search-status").textContent(), patient).toBe("3 results in 3 files");
    const files = await page
      .getByTestId("search-file")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-path")));
    expect(files.sort()).toEqual(["docs/gamma.md", "src/alpha.ts", "src/deep/beta.ts"]);
    // node_modules is left out (unless asked): the ignore rules hold in the page too.
    const second = (await page.getByTestId("search-file").nth(1).getAttribute("data-path")) as string;
    const match = page.locator(`[data-testid="search-match"][data-path="${second}"]`);
    const expected =
      { "docs/gamma.md": "Find findme here", "src/alpha.ts": "const findme = 1;" }[second] ??
      "  return findme;  // seven";
    await expect.poll(() => match.locator("mark").textContent(), patient).toBe("findme");
    await match.click();
    await cursorAt(second, expected);
    expect(errors).toEqual([]);
  });

  it("shows why a regular expression does not compile, and finds with one that does", async () => {
    await page.keyboard.press("Control+Shift+F");
    await page.getByTestId("search-regex").click();
    await page.getByTestId("search-input").fill("find(me");
    await expect.poll(() => page.getByTestId("search-error").textContent(), patient).toMatch(/does not compile/);
    await page.getByTestId("search-input").fill("find(me|you)");
    await expect.poll(() => page.getByTestId("search-status").textContent(), patient).toBe("3 results in 3 files");
    expect(await page.getByTestId("search-error").count()).toBe(0);
  });
});

describe("quick open", () => {
  it("Ctrl+P opens a file by a fuzzy name, and name:line at that line; new files appear", async () => {
    // In the terminal Ctrl+P is the shell's (previous command): the person is in the file tree.
    await page.locator('[data-testid="file-tree"] [role="tree"]').click();
    await page.keyboard.press("Control+P");
    const input = picker().getByRole("combobox", { name: "Go to file" });
    await input.waitFor();
    await expect.poll(() => picker().textContent(), patient).toContain("files");
    await page.keyboard.type("gamd");
    await expect.poll(() => options().first().textContent(), patient).toBe("gamma.mddocs/");
    await page.keyboard.press("Enter");
    await expect.poll(() => picker().count(), patient).toBe(0);
    await cursorAt("docs/gamma.md", "# Gamma");

    await page.keyboard.press("Control+P");
    await page.keyboard.type("dpbeta:7");
    await expect.poll(() => options().first().getAttribute("aria-selected"), patient).toBe("true");
    await page.keyboard.press("Enter");
    await cursorAt("src/deep/beta.ts", "  return findme;  // seven");

    // Made in the terminal after the list was read: the file watcher adds it.
    shell(container, "printf 'late\\n' > /workspace/src/latecomer.ts");
    await expect
      .poll(async () => {
        await page.keyboard.press("Control+P");
        await page.keyboard.type("latecomer");
        const first = await options()
          .first()
          .textContent({ timeout: 2_000 })
          .catch(() => "");
        await page.keyboard.press("Escape");
        return first;
      })
      .toBe("latecomer.tssrc/");
  });

  it("is a combobox the arrows move through; Escape closes it and gives the keyboard back", async () => {
    await page.locator('[data-testid="file-tree"] [role="tree"]').click();
    await page.keyboard.press("Control+P");
    const input = picker().getByRole("combobox");
    await input.waitFor();
    await page.keyboard.type("ts");
    await expect.poll(() => options().count(), patient).toBe(2);
    const first = await input.getAttribute("aria-activedescendant");
    await page.keyboard.press("ArrowDown");
    const second = await input.getAttribute("aria-activedescendant");
    expect(second).not.toBe(first);
    expect(await page.locator(`[id="${second}"]`).getAttribute("aria-selected")).toBe("true");
    await page.keyboard.press("Escape");
    await expect.poll(() => picker().count(), patient).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("tree");
  });
});

describe("the command palette", () => {
  it("lists every command with its keys, and runs the one picked", async () => {
    await page.keyboard.press("Control+Shift+P");
    await picker().getByRole("combobox", { name: "Run a command" }).waitFor();
    const goToFile = options().filter({ hasText: "Go to file" });
    await expect.poll(() => goToFile.locator("kbd").textContent(), patient).toBe("Ctrl+P");
    for (const title of [
      "Save file",
      "Save all files",
      "Search in files",
      "Go to line…",
      "Show or hide hidden files",
    ]) {
      expect(await options().filter({ hasText: title }).count(), title).toBe(1);
    }
    await page.keyboard.type("new term");
    await expect.poll(() => options().first().textContent(), patient).toBe("New terminal");
    await page.keyboard.press("Enter");
    await page.getByTestId("terminal-tab-term-2").waitFor();
  });

  it("F1 opens it too, and Ctrl+G goes to a line of the open file", async () => {
    await page.keyboard.press("F1");
    await page.keyboard.type("go to file");
    await page.keyboard.press("Enter");
    await page.keyboard.type("alpha");
    await expect.poll(() => options().first().textContent(), patient).toBe("alpha.tssrc/");
    await page.keyboard.press("Enter");
    await cursorAt("src/alpha.ts", "one");
    await page.keyboard.press("Control+G");
    await picker().getByRole("combobox", { name: "Go to line" }).waitFor();
    await page.keyboard.type("3");
    await page.keyboard.press("Enter");
    await cursorAt("src/alpha.ts", "const findme = 1;");
  });
});
