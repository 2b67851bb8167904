import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, reload } from "../support/browser";
import { createWorkspace, openWorkspace } from "../support/session";
import { connected, hook, screen, typeLine, waitForScreen } from "../support/terminal-page";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** Opens a workspace with its terminal connected and a prompt showing. */
async function openTerminalPage(id?: string) {
  const workspaceId = id ?? (await createWorkspace());
  const opened = await openWorkspace(browser, workspaceId);
  await connected(opened.page);
  await waitForScreen(opened.page, /\/workspace# /);
  return { ...opened, workspaceId };
}

/** Counts the terminal WebSockets the page opens. */
function countSockets(page: Page): () => number {
  let count = 0;
  page.on("websocket", (ws) => {
    if (ws.url().includes("/terminals/")) count++;
  });
  return () => count;
}

describe("the terminal", () => {
  it("runs a command and shows its output", async () => {
    const { page, errors } = await openTerminalPage();
    await typeLine(page, "echo hello-$((6*7)) from $(pwd)");
    await waitForScreen(page, /hello-42 from \/workspace/);
    // The screen is drawn by WebGL (a canvas) or, without it, by the DOM
    // renderer, whose rows hold the same text.
    const view = page.locator(".terminal-view:not(.inactive)");
    const rows = view.locator(".xterm-rows");
    const canvas = view.locator(".xterm-screen canvas");
    await rows.or(canvas).first().waitFor();
    if ((await rows.count()) > 0) {
      await expect.poll(() => rows.textContent()).toMatch(/hello-42 from \/workspace/);
    } else {
      expect((await canvas.first().boundingBox())?.width ?? 0).toBeGreaterThan(0);
    }
    expect(await page.getByTestId("connection-status").textContent()).toBe("Connected");
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("finds a command still running, with its earlier output, after a reload", async () => {
    const { page, workspaceId } = await openTerminalPage();
    // A tick every 2 s: a reload that takes long on a loaded machine must not scroll the ticks seen before
    // it off the screen (tmux redraws its screen on attach, not its history).
    await typeLine(page, "for i in $(seq 1 100000); do echo tick-$i; sleep 2; done");
    const before = await waitForScreen(page, /tick-3\b/);
    const seen = Math.max(...[...before.matchAll(/tick-(\d+)/g)].map((m) => Number(m[1])));
    await reload(page);
    await connected(page);
    // Output from before the reload is still there, and the loop goes on.
    const after = await waitForScreen(page, new RegExp(`tick-${seen + 2}\\b`));
    expect(after).toMatch(new RegExp(`tick-${seen}\\b`));
    await page.getByTestId(`terminal-tab-main`).waitFor({ state: "visible" });
    expect(page.url()).toContain(workspaceId);
    await page.keyboard.press("Control+C");
    await page.context().close();
  });

  it("reconnects by itself after its socket drops", async () => {
    const { page } = await openTerminalPage();
    const sockets = countSockets(page);
    await typeLine(page, "export BEFORE_DROP=kept-$((40+2))");
    await hook(page, "dropTerminalSocket");
    await expect.poll(sockets, { timeout: 30_000 }).toBe(1);
    await connected(page);
    await typeLine(page, 'echo "after drop: $BEFORE_DROP"');
    await waitForScreen(page, /after drop: kept-42/);
    await page.context().close();
  });

  it("keeps two terminal tabs independent", async () => {
    const { page } = await openTerminalPage();
    await typeLine(page, "cd /tmp && echo first-$((1+1))");
    await waitForScreen(page, /first-2/);

    await page.getByTestId("terminal-new").click();
    await page.getByTestId("terminal-tab-term-2").waitFor();
    await connected(page);
    await waitForScreen(page, /\/workspace# /);
    await typeLine(page, 'echo "second-$((2+2)) in $(pwd)"');
    const second = await waitForScreen(page, /second-4 in \//);
    expect(second).toMatch(/second-4 in \/workspace/);
    expect(second).not.toMatch(/first-2/);

    await page.getByTestId("terminal-tab-main").click();
    const first = await waitForScreen(page, /first-2/);
    expect(first).not.toMatch(/second-4/);
    await typeLine(page, 'echo "still in $(pwd)"');
    await waitForScreen(page, /still in \/tmp/);
    await page.context().close();
  });

  it("asks before closing a tab where something runs, then ends its terminal", async () => {
    const { page, workspaceId } = await openTerminalPage();
    await page.getByTestId("terminal-new").click();
    await page.getByTestId("terminal-tab-term-2").waitFor();
    await connected(page);
    await waitForScreen(page, /\/workspace# /);
    await typeLine(page, "sleep 600");
    const names = () =>
      page.evaluate(async (id) => {
        const response = await fetch(`/api/workspaces/${id}/terminals`);
        return ((await response.json()) as { name: string; busy: boolean }[]).map((t) => `${t.name}:${t.busy}`);
      }, workspaceId);
    await expect.poll(names, { timeout: 15_000 }).toEqual(["main:false", "term-2:true"]);

    const asked: string[] = [];
    page.once("dialog", (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByTestId("terminal-close-term-2").click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toContain("sleep");
    await page.getByTestId("terminal-tab-term-2").waitFor({ state: "visible" });

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByTestId("terminal-close-term-2").click();
    await page.getByTestId("terminal-tab-term-2").waitFor({ state: "detached" });
    await expect.poll(names, { timeout: 15_000 }).toEqual(["main:false"]);
    await page.context().close();
  });

  it("follows the window size (stty size)", async () => {
    const { page } = await openTerminalPage();
    const size = () => hook<{ cols: number; rows: number }>(page, "terminalSize");
    const first = await size();
    await page.setViewportSize({ width: 1800, height: 1100 });
    await expect.poll(async () => (await size()).cols, { timeout: 10_000 }).toBeGreaterThan(first.cols);
    const { cols, rows } = await size();
    // The PTY's resize lands a moment after the page's (the server cannot
    // know when: the engine's resize is fire and forget), while keys go
    // straight to the shell: ask until the shell sees the page's size.
    // tmux keeps one row for its status line.
    const expected = new RegExp(`^${rows - 1} ${cols}$`, "m");
    await expect
      .poll(
        async () => {
          await typeLine(page, "clear; stty size");
          return waitForScreen(page, /^\d+ \d+$/m, 5_000);
        },
        { timeout: 20_000, interval: 500 },
      )
      .toMatch(expected);
    await page.context().close();
  });

  it("attaches at its real size after a reload, so tmux does not redraw cleared lines", async () => {
    const { page } = await openTerminalPage();
    await typeLine(page, "echo cleared-$((6*7)); clear");
    await expect.poll(() => screen(page), { timeout: 30_000 }).not.toMatch(/cleared-42/);
    const attached: { cols: number; rows: number }[] = [];
    page.on("websocket", (ws) => {
      const url = new URL(ws.url());
      if (url.pathname.includes("/terminals/")) {
        attached.push({ cols: Number(url.searchParams.get("cols")), rows: Number(url.searchParams.get("rows")) });
      }
    });
    await reload(page);
    await connected(page);
    const size = await hook<{ cols: number; rows: number }>(page, "terminalSize");
    expect(attached).toEqual([size]);
    await waitForScreen(page, /\/workspace# /);
    expect(await screen(page)).not.toMatch(/cleared-42/);
    await page.context().close();
  });

  it("survives a flood and returns to the prompt after Ctrl+C", async () => {
    const { page } = await openTerminalPage();
    const sockets = countSockets(page);
    await typeLine(page, "yes flooding-the-terminal");
    await waitForScreen(page, /flooding-the-terminal\nflooding-the-terminal/);
    await new Promise((r) => setTimeout(r, 3000));
    await page.keyboard.press("Control+C");
    await typeLine(page, "echo back-at-$((100+1))");
    await waitForScreen(page, /back-at-101/);
    expect(await page.getByTestId("connection-status").getAttribute("data-state")).toBe("connected");
    expect(sockets()).toBe(0);
    await page.context().close();
  });
});
