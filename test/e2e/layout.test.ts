import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser";
import { createWorkspace, openWorkspace, ownerApi } from "../support/session";
import { connected, hook, waitForScreen } from "../support/terminal-page";

/** Where the tests leave a screenshot of each viewport (the README names it). */
const SCREENSHOTS = join(process.cwd(), "test-results", "screenshots");

const DESKTOPS = [
  { name: "1280x800", viewport: { width: 1280, height: 800 } },
  { name: "1920x1080", viewport: { width: 1920, height: 1080 } },
];
/** Chromium's device emulation of a phone: touch, a coarse pointer, a dense screen. */
const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
};

const TABLET: BrowserContextOptions = { ...PHONE, viewport: { width: 820, height: 1180 }, deviceScaleFactor: 2 };

let browser: Browser;
const workspaces: string[] = [];
beforeAll(async () => {
  browser = await launchBrowser();
  mkdirSync(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  for (const id of workspaces) {
    await ownerApi(`/api/workspaces/${id}/previews/dev-server`, { method: "DELETE" }).catch(() => undefined);
    await ownerApi(`/api/workspaces/${id}`, { method: "DELETE" }).catch(() => undefined);
  }
  await browser?.close();
});

/**
 * What is wrong with a toolbar's layout: a visible child outside its box
 * (overflow), children on more than one line (wrap), or content wider than it.
 */
function toolbarProblems(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const problems: string[] = [];
    for (const bar of Array.from(document.querySelectorAll<HTMLElement>(sel))) {
      if (bar.offsetParent === null) continue;
      const box = bar.getBoundingClientRect();
      const name = `${sel} (${bar.dataset.testid ?? bar.className})`;
      if (bar.scrollWidth > bar.clientWidth + 1)
        problems.push(`${name} overflows: ${bar.scrollWidth} > ${bar.clientWidth}`);
      const children = Array.from(bar.children)
        .map((child) => ({ child, rect: child.getBoundingClientRect() }))
        .filter(({ rect }) => rect.width > 0 && rect.height > 0);
      for (const { child, rect } of children) {
        if (rect.left < box.left - 1 || rect.right > box.right + 1) {
          problems.push(
            `${name}: ${child.textContent?.trim() || child.tagName} sticks out (${rect.left}-${rect.right} of ${box.left}-${box.right})`,
          );
        }
      }
      const lowestTop = Math.max(...children.map(({ rect }) => rect.top));
      const highestBottom = Math.min(...children.map(({ rect }) => rect.bottom));
      if (children.length > 1 && lowestTop >= highestBottom) problems.push(`${name} wraps onto a second line`);
    }
    return problems;
  }, selector);
}

/** Whether an element is inside the viewport and shows all its content (no hidden scroll). */
function fullyVisible(page: Page, testId: string): Promise<string | true> {
  return page
    .getByTestId(testId)
    .first()
    .evaluate((element) => {
      const rect = element.getBoundingClientRect();
      if (rect.left < 0 || rect.top < 0 || rect.right > innerWidth || rect.bottom > innerHeight) {
        return `outside the viewport: ${JSON.stringify(rect)}`;
      }
      if (element.scrollWidth > element.clientWidth + 1 || element.scrollHeight > element.clientHeight + 1) {
        return `content cut off: ${element.scrollWidth}x${element.scrollHeight} in ${element.clientWidth}x${element.clientHeight}`;
      }
      return true;
    });
}

const TOOLBARS = [
  ".workspace-header",
  '[data-testid="preview-toolbar"]',
  ".terminal-tabs",
  ".file-tree-toolbar",
  ".sidebar-tabs",
  ".share-create",
  ".share-actions",
  ".pane-tabs",
  ".terminal-key-bar",
];

/** Waits until the preview shows the template's page (for the screenshot). */
async function previewShows(page: Page): Promise<void> {
  const frame = await page.getByTestId("preview-frame").elementHandle({ timeout: 120_000 });
  const content = await frame?.contentFrame();
  if (!content) throw new Error("the preview pane has no frame");
  // A module load that met a container's start (Chromium fails requests in flight on a network change,
  // test/support/browser.ts) leaves the page blank for good: reloaded as a person would, twice at most.
  for (let attempt = 1; ; attempt++) {
    const shown = await content
      .getByText("Hello from your workspace")
      .waitFor({ timeout: 60_000 })
      .then(
        () => true,
        () => false,
      );
    if (shown) return;
    // What the frame shows instead says why (an error page, a blank page, a page still loading).
    const showing = await content
      .evaluate(() => `${location.href} [${document.readyState}]: ${document.body?.textContent?.slice(0, 500)}`)
      .catch((e) => String(e));
    if (attempt === 3) throw new Error(`the preview did not show the template's page in 3 loads; it shows ${showing}`);
    console.log(`the preview's load ${attempt} shows ${showing}: loading it again`);
    await content.evaluate(() => location.reload()).catch(() => undefined);
  }
}

async function openRunning(options: BrowserContextOptions) {
  const id = await createWorkspace("layout e2e");
  workspaces.push(id);
  const opened = await openWorkspace(browser, id, options);
  await opened.page.locator('[data-testid="container-state"][data-state="running"]').waitFor({ timeout: 60_000 });
  return { ...opened, id };
}

describe("the layout", () => {
  for (const { name, viewport } of DESKTOPS) {
    it(`fits at ${name}: toolbars on one line, the share link whole`, async () => {
      const { page, id, errors } = await openRunning({ viewport });
      await connected(page);
      const started = await ownerApi(`/api/workspaces/${id}/previews/dev-server`, { method: "POST" });
      expect(started.status).toBeLessThan(300);
      const pane = page.getByTestId("pane-preview");
      await pane.getByTestId("preview-frame").waitFor({ timeout: 120_000 });
      await pane.getByTestId("preview-share").click();
      await pane.getByTestId("share-create").click();
      await pane.getByTestId("share-url").waitFor();

      expect(await toolbarProblems(page, TOOLBARS.join(", "))).toEqual([]);
      expect(await fullyVisible(page, "share-url")).toBe(true);
      // The link is selectable text: selecting it selects the whole URL.
      const url = await pane.getByTestId("share-url").inputValue();
      expect(url).toMatch(/^http:\/\/5173-/);
      // Icon buttons have names a screen reader reads.
      for (const label of ["Reload the preview", "Open the preview in a new tab", "New terminal"]) {
        expect(await page.getByLabel(label).count(), label).toBe(1);
      }
      // Keyboard focus is visible: the focused control has an outline.
      await page.getByTestId("preview-reload").focus();
      await page.keyboard.press("Tab");
      const outline = await page.evaluate(() => {
        const focused = document.activeElement as HTMLElement | null;
        return focused ? getComputedStyle(focused).outlineStyle : "none";
      });
      expect(outline).not.toBe("none");
      await previewShows(page);
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
      expect(errors).toEqual([]);
      await page.context().close();
    }, 240_000);
  }

  it("gives the terminal the room while no file is open, and maximizes a pane with a key", async () => {
    const { page, errors } = await openRunning({ viewport: { width: 1280, height: 800 } });
    await connected(page);
    const height = async (testId: string) => (await page.getByTestId(testId).boundingBox())?.height ?? 0;
    expect(await height("pane-terminal")).toBeGreaterThan(2 * (await height("pane-editor")));

    await page.locator('.terminal-view:not(.inactive) [data-testid="terminal"]').click();
    await page.keyboard.press("Control+Shift+Enter");
    await page.locator('[data-testid="pane-terminal"].maximized').waitFor();
    const box = await page.getByTestId("pane-terminal").boundingBox();
    expect(box?.width).toBe(1280);
    // The terminal follows: it has more columns now.
    await expect.poll(async () => (await hook<{ cols: number }>(page, "terminalSize")).cols).toBeGreaterThan(140);
    await page.getByTestId("maximize-terminal").click();
    await page.locator('[data-testid="pane-terminal"].maximized').waitFor({ state: "detached" });

    // Opening a file gives the editor its share back.
    await page.locator('[data-testid="file-tree"] [data-path="package.json"]').click();
    await page.getByTestId("code-editor").waitFor();
    await expect.poll(() => height("pane-editor")).toBeGreaterThan(await height("pane-terminal"));
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

describe("on a phone (390x844) and a tablet (820x1180), with touch", () => {
  it("shows panes as tabs, and types through the key bar and the on-screen keyboard", async () => {
    const { page, errors } = await openRunning(PHONE);
    await connected(page);
    await waitForScreen(page, /\/workspace# /);
    expect(await page.getByTestId("pane-terminal").isVisible()).toBe(true);
    expect(await page.getByTestId("pane-files").isVisible()).toBe(false);
    expect(await toolbarProblems(page, TOOLBARS.join(", "))).toEqual([]);

    // Tapping the terminal gives it the keyboard (xterm.js's hidden textarea has the focus).
    await page.getByTestId("terminal").first().tap();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.classList.contains("xterm-helper-textarea")))
      .toBe(true);
    // An on-screen keyboard sends text as input events, not key presses.
    await page.keyboard.insertText("garbage");
    await page.getByTestId("key-ctrl").tap();
    await page.keyboard.insertText("u"); // Ctrl+U: the shell forgets the line
    await page.keyboard.insertText("echo phone-k");
    await page.getByTestId("key-arrow-d").tap(); // ← before the k
    await page.keyboard.insertText("o");
    await page.keyboard.press("Enter");
    await waitForScreen(page, /^phone-ok$/m);
    expect(await hook<string>(page, "terminalText")).not.toMatch(/garbage/);

    // The terminal's text can be selected and copied as plain text.
    await page.getByTestId("key-select").tap();
    expect(await page.getByTestId("terminal-text").textContent()).toContain("phone-ok");
    await page.screenshot({ path: join(SCREENSHOTS, "390x844-terminal.png") });
    await page.getByTestId("terminal-text-sheet").getByRole("button", { name: "Close", exact: true }).tap();

    await page.getByTestId("pane-tab-files").tap();
    await page.locator('[data-testid="file-tree"] [data-path="package.json"]').tap();
    // Opening a file shows the editor.
    await page.getByTestId("code-editor").waitFor();
    expect(await page.getByTestId("pane-editor").isVisible()).toBe(true);
    expect(await toolbarProblems(page, TOOLBARS.join(", "))).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, "390x844-editor.png") });

    // Secondary actions (backups, agents) are in the workspace menu; what they open fits the phone.
    await page.getByTestId("workspace-menu").tap();
    await page.getByTestId("agents-open").tap();
    const agents = page.getByTestId("agents-panel");
    await agents.getByText("No agent tokens").waitFor();
    const box = await agents.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390, JSON.stringify(box)).toBe(true);
    expect(await toolbarProblems(page, TOOLBARS.join(", "))).toEqual([]);
    await agents.getByRole("button", { name: "Close the agents panel" }).tap();
    await agents.waitFor({ state: "detached" });
    expect(errors).toEqual([]);
    await page.context().close();
  }, 180_000);

  for (const [name, device] of [
    ["390x844", PHONE],
    ["820x1180", TABLET],
  ] as const) {
    it(`fits the preview's toolbar and a whole share link at ${name}`, async () => {
      const { page, id, errors } = await openRunning(device);
      await ownerApi(`/api/workspaces/${id}/previews/dev-server`, { method: "POST" });
      await page.getByTestId("pane-tab-preview").tap();
      const pane = page.getByTestId("pane-preview");
      await pane.getByTestId("preview-frame").waitFor({ timeout: 120_000 });
      await pane.getByTestId("preview-share").tap();
      await pane.getByTestId("share-create").tap();
      await pane.getByTestId("share-url").waitFor();
      expect(await toolbarProblems(page, TOOLBARS.join(", "))).toEqual([]);
      expect(await fullyVisible(page, "share-url")).toBe(true);
      await previewShows(page);
      await page.screenshot({ path: join(SCREENSHOTS, `${name}-preview.png`) });
      expect(errors).toEqual([]);
      await page.context().close();
    }, 180_000);
  }
});
