import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser";
import { shell, workspaceContainer } from "../support/files";
import { createWorkspace, openWorkspace } from "../support/session";

// The language servers as a user meets them: the template app (Vite + React
// + TypeScript) opened from the tree, typed into, F12, F2, the Problems list.

let browser: Browser;
let page: Page;
let container: string;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await page?.context().close();
});

async function open(name: string, setup?: string) {
  const id = await createWorkspace(`lsp e2e ${name}`);
  container = await workspaceContainer(id);
  if (setup) shell(container, setup);
  ({ page } = await openWorkspace(browser, id));
  await row("src").waitFor({ timeout: 60_000 });
}

const row = (path: string) => page.locator(`[data-testid="file-tree"] [data-path="${path}"]`);
const tab = (path: string) => page.locator(`[data-testid="editor-tab"][data-path="${path}"]`);
const content = () => page.locator('[data-testid="code-editor"] .cm-content');
const problems = () => page.locator('[data-testid="problem"]');
const serverState = (server: string) =>
  page.locator(`[data-testid="language-server-state"][data-server="${server}"]`).getAttribute("data-state");

/** Opens a file from the tree and waits until it is loaded (its text in the editor, so the server is sent it). */
async function openFile(path: string) {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const folder = parts.slice(0, i).join("/");
    if ((await row(parts.slice(0, i + 1).join("/")).count()) === 0) await row(folder).click();
  }
  await row(path).click();
  // "loading" until its bytes and shared document are in (app/editor/EditorPane.tsx).
  await page.locator(`[data-testid="editor-tab"][data-path="${path}"]:not([data-shared="loading"])`).waitFor();
  await content().waitFor();
}

/** Waits for the server to be ready: initialized, with the open files sent to it. */
async function ready(server = "typescript") {
  await expect.poll(() => serverState(server), { timeout: 90_000 }).toBe("ready");
}

/**
 * How long a request the person made may take to answer: longer than the app's own wait
 * (REQUEST_TIMEOUT_MS, 60 s, app/lsp/language-client.ts), after which it gives up and says so. A
 * first request is answered once tsserver has loaded the project (8-10 s on an idle 2-core machine).
 */
const ANSWER_MS = 90_000;

const selectedTab = () => page.locator('[data-testid="editor-tab"][aria-selected="true"]').getAttribute("data-path");

/** Puts the cursor on the first occurrence of `text` (plus `offset` characters) in the editor. */
async function cursorAt(text: string, offset = 0) {
  await page.evaluate(
    ({ text, offset }) => {
      type View = { state: { doc: { toString(): string } }; dispatch(spec: unknown): void; focus(): void };
      // CodeMirror keeps its view on the content element (what EditorView.findFromDOM reads).
      const content = document.querySelector('[data-testid="code-editor"] .cm-content') as
        | (HTMLElement & { cmTile?: { root?: { view?: View } } })
        | null;
      const view = content?.cmTile?.root?.view;
      if (!view) throw new Error("no CodeMirror view");
      const index = view.state.doc.toString().indexOf(text);
      if (index === -1) throw new Error(`"${text}" is not in the editor`);
      view.dispatch({ selection: { anchor: index + offset } });
      view.focus();
    },
    { text, offset },
  );
}

/**
 * The completion list's option `label`, once offered. The first answer of a
 * cold server can come after the list gave up: the test asks again as a
 * user would (Ctrl+Space).
 */
async function offered(label: string) {
  const option = page.locator(".cm-tooltip-autocomplete li", { hasText: new RegExp(`^${label}$`) }).first();
  await expect
    .poll(
      async () => {
        if ((await option.count()) === 0) await page.keyboard.press("Control+Space");
        return option.count();
      },
      { timeout: 90_000, interval: 2_000 },
    )
    .toBeGreaterThan(0);
  return option;
}

describe("language servers in the editor", () => {
  it("completes document.qu with querySelector, with its documentation", { timeout: 240_000 }, async () => {
    await open("completion");
    await openFile("src/main.tsx");
    await ready();
    await content().click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\ndocument.qu");
    const option = await offered("querySelector");
    await option.click();
    await expect.poll(() => content().textContent()).toContain("document.querySelector");
    // The documentation of an item, asked for when it is selected.
    await page.keyboard.type("All");
    await page.keyboard.press("Control+Space");
    await expect
      .poll(() => page.locator(".cm-completionInfo").textContent(), { timeout: 30_000 })
      .toMatch(/Returns all element descendants|querySelectorAll/);
  });

  it("shows a type error as a squiggle and in Problems, and clears both once fixed", async () => {
    await open("diagnostics");
    await openFile("src/main.tsx");
    await ready();
    await page.getByTestId("problems-toggle").click();
    await content().click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type('\nexport const count: number = "many";');
    const problem = problems().filter({ hasText: "not assignable to type 'number'" });
    await problem.waitFor({ timeout: 60_000 });
    await page.locator(".cm-lintRange-error").first().waitFor();
    expect(await problem.getAttribute("data-path")).toBe("src/main.tsx");
    // Click goes to the line.
    await page.keyboard.press("Control+Home");
    await problem.click();
    await expect.poll(() => page.locator(".cm-activeLine").textContent()).toContain("count: number");
    // Fix it: 42 instead of "many".
    await cursorAt('"many"');
    await page.keyboard.press("Shift+End");
    await page.keyboard.type("42;");
    await expect.poll(() => problem.count(), { timeout: 60_000 }).toBe(0);
    await expect.poll(() => page.locator(".cm-lintRange-error").count(), { timeout: 30_000 }).toBe(0);
  });

  it("goes to the definition of an imported name in its file with F12", async () => {
    await open("definition");
    await openFile("src/main.tsx");
    await ready();
    // Pressed once: the first request after "ready" is answered, and completely (one tsserver, no syntax
    // server's early partial answers: worker/lsp/server-specs.ts).
    await cursorAt("<App", 2);
    await page.keyboard.press("F12");
    await expect.poll(selectedTab, { timeout: ANSWER_MS }).toBe("src/App.tsx");
    // The jump puts the cursor there once App.tsx has loaded (up to the app's 30 s wait for its shared document).
    await expect
      .poll(() => page.locator(".cm-activeLine").textContent(), { timeout: 60_000 })
      .toContain("export function App");
  });

  it("formats a document with Shift+Alt+F, and from the command palette", async () => {
    await open(
      "format",
      `printf 'export const   point={x:1,y:2}\\nexport function  add(a:number,b:number){return a+b}\\n' > /workspace/src/ugly.ts`,
    );
    await openFile("src/ugly.ts");
    await ready();
    await content().click();
    await page.keyboard.press("Shift+Alt+F");
    await expect
      .poll(() => content().textContent(), { timeout: 30_000 })
      .toContain("export const point = { x: 1, y: 2 }");
    // Unformat one line again, then the palette's command.
    await cursorAt("point = ");
    await page.keyboard.press("End");
    await page.keyboard.type("\nexport const   other={z:3}");
    await page.keyboard.press("Control+Shift+P");
    await page.keyboard.type("Format document");
    await page.keyboard.press("Enter");
    await expect.poll(() => content().textContent(), { timeout: 30_000 }).toContain("export const other = { z: 3 }");
    expect(await content().textContent()).toContain("return a + b");
  });

  it("finds references and renames a function in both files on disk with F2", { timeout: 240_000 }, async () => {
    await open("rename");
    await openFile("src/App.tsx");
    await ready();
    // Pressed once, as F12 above: the list shows when the answer came (all of it at once), or why it failed.
    await cursorAt("function App", "function ".length + 1);
    await page.keyboard.press("Shift+F12");
    const reference = page.locator('[data-testid="reference"]');
    await reference.or(page.getByTestId("references-failed")).first().waitFor({ timeout: ANSWER_MS });
    expect(await page.getByTestId("references-failed").allTextContents()).toEqual([]);
    const paths = await reference.evaluateAll((items) => items.map((item) => item.getAttribute("data-path")));
    expect(new Set(paths)).toEqual(new Set(["src/App.tsx", "src/main.tsx"]));
    await cursorAt("function App", "function ".length + 1);
    await page.keyboard.press("F2");
    await page.locator(".cm-lsp-rename-panel input").waitFor();
    await page.locator(".cm-lsp-rename-panel input").fill("Root");
    await page.keyboard.press("Enter");
    await expect
      .poll(() => shell(container, "cat /workspace/src/App.tsx /workspace/src/main.tsx"), { timeout: 60_000 })
      .toMatch(/export function Root\(\)[\s\S]*import \{ Root \} from "\.\/App"[\s\S]*<Root \/>/);
    // The open tab shows what is on disk, saved.
    // The disk has the new text before the save's answer clears the tab's mark.
    await expect.poll(() => tab("src/App.tsx").getAttribute("data-dirty"), { timeout: 10_000 }).toBe("false");
    await expect.poll(() => content().textContent()).toContain("export function Root()");
  });

  it("reports an undefined name in a Python file", async () => {
    await open("python", "printf 'def greet():\\n    return nobody\\n' > /workspace/app.py");
    await openFile("app.py");
    await ready("python");
    await page.getByTestId("problems-toggle").click();
    const problem = problems().filter({ hasText: '"nobody" is not defined' });
    await problem.waitFor({ timeout: 60_000 });
    expect(await problem.getAttribute("data-path")).toBe("app.py");
    // The squiggle is under the undefined name, and nowhere else.
    const squiggles = page.locator(".cm-lintRange-error");
    await squiggles.first().waitFor();
    expect(await squiggles.allTextContents()).toEqual(["nobody"]);
  });

  it("keeps working after the server is killed in the terminal", { timeout: 240_000 }, async () => {
    await open("restart");
    await openFile("src/main.tsx");
    await ready();
    await page.locator('[data-testid="connection-status"][data-state="connected"]').waitFor({ timeout: 60_000 });
    await page.locator('.terminal-view:not(.inactive) [data-testid="terminal"]').click();
    const killed = shell(container, "pgrep -f '[t]ypescript-language-server' | sort");
    expect(killed).not.toBe("");
    await page.keyboard.type("pkill -KILL -f '[t]ypescript-language-server'");
    await page.keyboard.press("Enter");
    await expect.poll(() => serverState("typescript"), { timeout: 30_000 }).not.toBe("ready");
    await ready();
    // A new server process, none of the killed ones.
    const started = shell(container, "pgrep -f '[t]ypescript-language-server' | sort").split("\n");
    expect(started.filter((pid) => killed.split("\n").includes(pid))).toEqual([]);
    await content().click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\ndocument.qu");
    await (await offered("querySelector")).click();
    await expect.poll(() => content().textContent()).toContain("document.querySelector");
  });
});
