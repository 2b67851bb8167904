import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser";
import { shell, workspaceContainer } from "../support/files";
import { createWorkspace, openWorkspace } from "../support/session";

// The terminal UI is not on main yet: "the terminal" here is `docker exec` into
// the workspace's own container, the same shell a terminal tab would reach.

let browser: Browser;
let page: Page;
let errors: string[];
let container: string;

beforeAll(async () => {
  browser = await launchBrowser();
  const id = await createWorkspace("files e2e");
  container = await workspaceContainer(id);
  shell(
    container,
    "mkdir -p /workspace/src && printf 'export const a = 1;\\n' > /workspace/src/hello.ts && printf 'first\\n' > /workspace/notes.md",
  );
  // The first page load of a fresh dev server can be slow on a loaded machine: one retry.
  ({ page, errors } = await openWorkspace(browser, id).catch(() => openWorkspace(browser, id)));
  page.on("dialog", (dialog) => void dialog.accept());
  await row("src").waitFor({ timeout: 60_000 });
});
afterAll(async () => {
  await browser?.close();
});

const row = (path: string) => page.locator(`[data-testid="file-tree"] [data-path="${path}"]`);
const editorText = () => page.locator('[data-testid="code-editor"] .cm-content').textContent();
const tab = (path: string) => page.locator(`[data-testid="editor-tab"][data-path="${path}"]`);
const exists = (path: string) => shell(container, `test -e '/workspace/${path}' && echo yes || echo no`) === "yes";

async function until(check: () => boolean | Promise<boolean>, what: string) {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(100);
  }
}

async function menu(path: string | undefined, item: string) {
  const target = path ? row(path) : page.locator('[data-testid="file-tree"] [role="tree"]');
  await target.click({ button: "right", position: path ? undefined : { x: 20, y: 300 } });
  await page.getByTestId(item).click();
}

describe("files and editor", () => {
  it("opens a file from the tree, edits it and saves with the keyboard", async () => {
    await row("src").click();
    await row("src/hello.ts").click();
    await until(async () => ((await editorText()) ?? "").includes("export const a = 1;"), "the file in the editor");
    await page.locator('[data-testid="code-editor"] .cm-content').click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("export const b = 2;");
    await expect.poll(() => tab("src/hello.ts").getAttribute("data-dirty"), { timeout: 20_000 }).toBe("true");
    await page.keyboard.press("Control+s");
    await expect.poll(() => tab("src/hello.ts").getAttribute("data-dirty"), { timeout: 20_000 }).toBe("false");
    expect(shell(container, "cat /workspace/src/hello.ts")).toBe("export const a = 1;\nexport const b = 2;");
  });

  it("shows a file created in the terminal", async () => {
    shell(container, "echo hi > /workspace/from-terminal.txt");
    await row("from-terminal.txt").waitFor();
  });

  it("creates, renames, moves (drag) and deletes from the tree", async () => {
    await menu(undefined, "menu-new-folder");
    await page.getByTestId("tree-name-input").fill("folder-a");
    await page.keyboard.press("Enter");
    await row("folder-a").waitFor();
    expect(shell(container, "test -d /workspace/folder-a && echo dir")).toBe("dir");

    await menu(undefined, "menu-new-file");
    await page.getByTestId("tree-name-input").fill("made.txt");
    await page.keyboard.press("Enter");
    await row("made.txt").waitFor();
    expect(exists("made.txt")).toBe(true);

    await menu("made.txt", "menu-rename");
    await page.getByTestId("tree-name-input").fill("renamed.txt");
    await page.keyboard.press("Enter");
    await row("renamed.txt").waitFor();
    expect(exists("made.txt")).toBe(false);
    expect(exists("renamed.txt")).toBe(true);

    await row("renamed.txt").dragTo(row("folder-a"));
    await until(() => exists("folder-a/renamed.txt"), "the move in the container");
    expect(exists("renamed.txt")).toBe(false);
    await row("folder-a/renamed.txt").waitFor();

    await menu("folder-a", "menu-delete");
    await until(() => !exists("folder-a"), "the folder to be deleted");
    await row("folder-a").waitFor({ state: "detached" });
  });

  it("uploads by drop and downloads", async () => {
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File(["uploaded by drop\n"], "dropped.txt", { type: "text/plain" }));
      const tree = document.querySelector('[data-testid="file-tree"] [role="tree"]') as HTMLElement;
      tree.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
      tree.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await row("dropped.txt").waitFor();
    expect(shell(container, "cat /workspace/dropped.txt")).toBe("uploaded by drop");

    const download = page.waitForEvent("download");
    await menu("dropped.txt", "menu-download");
    const file = await (await download).path();
    expect(readFileSync(file, "utf8")).toBe("uploaded by drop\n");
  });

  it("reloads a clean buffer silently and offers a choice when a dirty one changes underneath", async () => {
    await row("notes.md").click();
    await until(async () => ((await editorText()) ?? "").includes("first"), "notes.md in the editor");
    shell(container, "printf 'second\\n' > /workspace/notes.md");
    await until(async () => ((await editorText()) ?? "").includes("second"), "the clean buffer to reload");
    expect(await page.getByTestId("conflict-bar").count()).toBe(0);

    await page.locator('[data-testid="code-editor"] .cm-content').click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("mine");
    await expect.poll(() => tab("notes.md").getAttribute("data-dirty"), { timeout: 20_000 }).toBe("true");
    shell(container, "printf 'from the terminal\\n' > /workspace/notes.md");
    await page.getByTestId("conflict-bar").waitFor();
    await page.getByTestId("conflict-compare").click();
    await page.getByTestId("compare-view").waitFor();
    expect(await page.getByTestId("compare-view").textContent()).toContain("from the terminal");
    await page.getByTestId("conflict-take").click();
    await until(async () => ((await editorText()) ?? "").includes("from the terminal"), "the disk version");
    expect(await tab("notes.md").getAttribute("data-dirty")).toBe("false");
    expect(errors).toEqual([]);
  });
});
