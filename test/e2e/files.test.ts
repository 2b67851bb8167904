import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser";
import { shell, workspaceContainer } from "../support/files";
import { createWorkspace, openWorkspace } from "../support/session";

// The user's own terminal (xterm.js in the page) runs `cat` and makes files;
// other changes "from the terminal" use `docker exec` into the workspace's own
// container, the same shell, to keep the test short.

declare global {
  interface Window {
    /** Test hooks the app installs (app/terminal/registry.ts). */
    __cloudIde?: Record<string, unknown>;
  }
}

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

// Each test has a workspace and a page of its own (test/support/cleanup.ts deletes the workspace after it).
beforeEach(async () => {
  const id = await createWorkspace("files e2e");
  container = await workspaceContainer(id);
  shell(
    container,
    "mkdir -p /workspace/src && printf 'export const a = 1;\\n' > /workspace/src/hello.ts && printf 'first\\n' > /workspace/notes.md",
  );
  ({ page, errors } = await openWorkspace(browser, id));
  page.on("dialog", (dialog) => void dialog.accept());
  await row("src").waitFor({ timeout: 60_000 });
});
afterEach(async () => {
  await page?.context().close();
});

/** Waits until the page's terminal is connected. */
const terminalConnected = () =>
  page.locator('[data-testid="connection-status"][data-state="connected"]').waitFor({ timeout: 60_000 });

/** What the terminal shows (test hook of app/terminal/registry.ts). */
const terminalScreen = () =>
  page.evaluate(() => {
    const fn = window.__cloudIde?.terminalText;
    if (typeof fn !== "function") throw new Error("the app has no terminalText hook");
    return fn() as string;
  });

/** Types a line into the terminal like a user. */
async function typeInTerminal(text: string) {
  await page.locator('.terminal-view:not(.inactive) [data-testid="terminal"]').click();
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
}

const row = (path: string) => page.locator(`[data-testid="file-tree"] [data-path="${path}"]`);
const editorText = () => page.locator('[data-testid="code-editor"] .cm-content').textContent();
/** The whole document the editor shows (the view draws only the lines on screen). */
const documentText = () =>
  page.evaluate(() => {
    const fn = window.__cloudIde?.editorText;
    if (typeof fn !== "function") throw new Error("the app has no editorText hook");
    return fn() as string | undefined;
  });
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
    // Shared once its document came: a file waits up to 30 s for it (app/editor/shared-buffer.ts), less than this
    // wait (the context's 60 s), so a slow document is not mistaken for a failure, nor a file opened unshared for a pass.
    await tab("src/hello.ts").and(page.locator('[data-shared="true"]')).waitFor();
    await until(async () => ((await editorText()) ?? "").includes("export const a = 1;"), "the file in the editor");
    await page.locator('[data-testid="code-editor"] .cm-content').click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("export const b = 2;");
    await expect.poll(() => tab("src/hello.ts").getAttribute("data-dirty"), { timeout: 20_000 }).toBe("true");
    await page.keyboard.press("Control+s");
    await expect.poll(() => tab("src/hello.ts").getAttribute("data-dirty"), { timeout: 20_000 }).toBe("false");
    expect(shell(container, "cat /workspace/src/hello.ts")).toBe("export const a = 1;\nexport const b = 2;");
    await terminalConnected();
    await typeInTerminal("cat src/hello.ts");
    await expect
      .poll(terminalScreen, { timeout: 30_000, interval: 200 })
      .toMatch(/export const a = 1;\s+export const b = 2;/);
  });

  it("shows a file created in the terminal", async () => {
    await terminalConnected();
    await typeInTerminal("echo hi > from-terminal.txt");
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

  /** Drops a file from "the desktop" onto the tree. */
  function dropFile(name: string, content: string): Promise<void> {
    return page.evaluate(
      ([fileName, text]) => {
        const data = new DataTransfer();
        data.items.add(new File([text], fileName, { type: "text/plain" }));
        const tree = document.querySelector('[data-testid="file-tree"] [role="tree"]') as HTMLElement;
        tree.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
        tree.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
      },
      [name, content] as const,
    );
  }

  it("uploads by drop and downloads", async () => {
    await dropFile("dropped.txt", "uploaded by drop\n");
    await row("dropped.txt").waitFor();
    expect(shell(container, "cat /workspace/dropped.txt")).toBe("uploaded by drop");

    const download = page.waitForEvent("download");
    await menu("dropped.txt", "menu-download");
    const file = await (await download).path();
    expect(readFileSync(file, "utf8")).toBe("uploaded by drop\n");
  });

  it("sends an upload's chunk again when its connection drops", async () => {
    const uploads = /\/files\/upload\?/;
    let dropped = 0;
    await page.route(uploads, async (route) => {
      if (route.request().method() === "PUT" && dropped === 0) {
        dropped++;
        return route.abort("connectionreset");
      }
      return route.continue();
    });
    await dropFile("resent.txt", "survived a dropped connection\n");
    await row("resent.txt").waitFor();
    await page.unroute(uploads);
    expect(dropped).toBe(1);
    expect(shell(container, "cat /workspace/resent.txt")).toBe("survived a dropped connection");
  });

  it("merges a change on disk into a shared buffer's unsaved edits, and says when its file is deleted", async () => {
    await row("notes.md").click();
    await tab("notes.md").and(page.locator('[data-shared="true"]')).waitFor();
    await until(async () => (await documentText()) === "first\n", "notes.md in the editor");
    shell(container, "printf 'first\\nsecond\\n' > /workspace/notes.md");
    await until(async () => (await documentText()) === "first\nsecond\n", "the change on disk in the clean buffer");

    // Unsaved edits at the top, a change on disk at the bottom: the shared document takes both, no conflict.
    await page.locator('[data-testid="code-editor"] .cm-content').click();
    await page.keyboard.press("Control+Home");
    await page.keyboard.type("mine ");
    await expect.poll(() => tab("notes.md").getAttribute("data-dirty"), { timeout: 20_000 }).toBe("true");
    shell(container, "printf 'first\\nsecond\\nthird\\n' > /workspace/notes.md");
    await until(async () => (await documentText()) === "mine first\nsecond\nthird\n", "the merged text");
    expect(await page.getByTestId("conflict-bar").count()).toBe(0);
    expect(await tab("notes.md").getAttribute("data-dirty")).toBe("true");
    await page.keyboard.press("Control+s");
    await expect.poll(() => tab("notes.md").getAttribute("data-dirty"), { timeout: 20_000 }).toBe("false");
    expect(shell(container, "cat /workspace/notes.md")).toBe("mine first\nsecond\nthird");

    // Deleted under unsaved edits: the bar says so, and Close closes the tab.
    await page.keyboard.type("more ");
    await expect.poll(() => tab("notes.md").getAttribute("data-dirty"), { timeout: 20_000 }).toBe("true");
    shell(container, "rm /workspace/notes.md");
    await page.getByTestId("conflict-bar").waitFor();
    expect(await page.getByTestId("conflict-bar").textContent()).toContain("deleted on disk");
    await page.getByTestId("conflict-take").click();
    await tab("notes.md").waitFor({ state: "detached" });
    expect(errors).toEqual([]);
  });

  it("saves a shared buffer's last keystrokes made while its socket was down", async () => {
    await row("notes.md").click();
    await tab("notes.md").and(page.locator('[data-shared="true"]')).waitFor();
    await until(async () => (await documentText()) === "first\n", "notes.md in the editor");
    // Edits made while the socket is down are only on this page: the save must bring them, not write the server's text.
    await page.evaluate(() => {
      const fn = window.__cloudIde?.disconnectSharedFile;
      if (typeof fn !== "function") throw new Error("the app has no disconnectSharedFile hook");
      fn("notes.md");
    });
    await page.locator('[data-testid="code-editor"] .cm-content').click();
    await page.keyboard.press("Control+Home");
    await page.keyboard.type("offline ");
    await expect.poll(() => tab("notes.md").getAttribute("data-dirty"), { timeout: 20_000 }).toBe("true");
    await page.keyboard.press("Control+s");
    await expect.poll(() => tab("notes.md").getAttribute("data-dirty"), { timeout: 60_000 }).toBe("false");
    expect(shell(container, "cat /workspace/notes.md")).toBe("offline first");
    expect(errors).toEqual([]);
  });

  it("reloads a clean unshared (over 512 KiB) buffer silently and offers a choice when a dirty one changes underneath", async () => {
    // Over MAX_SHARED_FILE_BYTES: one buffer per tab, saved with If-Match, as before co-editing.
    shell(container, "cd /workspace && { echo first; yes 'filler line of a large file' | head -c 600000; } > big.txt");
    await row("big.txt").click();
    // "false" is a loaded file that is not shared; a loading one says "loading".
    await tab("big.txt").and(page.locator('[data-shared="false"]')).waitFor();
    await until(async () => ((await documentText()) ?? "").startsWith("first\n"), "big.txt in the editor");
    shell(container, "sed -i '1s/.*/second/' /workspace/big.txt");
    await until(async () => ((await documentText()) ?? "").startsWith("second\n"), "the clean buffer to reload");
    expect(await page.getByTestId("conflict-bar").count()).toBe(0);

    await page.locator('[data-testid="code-editor"] .cm-content').click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("mine");
    await expect.poll(() => tab("big.txt").getAttribute("data-dirty"), { timeout: 20_000 }).toBe("true");
    shell(container, "sed -i '1s/.*/from the terminal/' /workspace/big.txt");
    await page.getByTestId("conflict-bar").waitFor();
    await page.getByTestId("conflict-compare").click();
    await page.getByTestId("compare-view").waitFor();
    expect(await page.getByTestId("compare-view").textContent()).toContain("from the terminal");
    await page.getByTestId("conflict-take").click();
    await until(async () => ((await documentText()) ?? "").startsWith("from the terminal\n"), "the disk version");
    expect(await documentText()).not.toContain("mine");
    expect(await tab("big.txt").getAttribute("data-dirty")).toBe("false");
    expect(errors).toEqual([]);
  });
});
