/**
 * Presence (issue 24), in two browser contexts: the owner and a guest
 * invited as a viewer each see the other in the header; a file one has open
 * is marked in the other's tree; the guest follows the owner (file and
 * scroll position, then a change of file, across a drop of the guest's own
 * socket) until the guest moves; each
 * terminal tab shows who else watches it; a guest removed leaves the
 * owner's header.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MemberList } from "../../protocol/members";
import { launchBrowser, loadAppOnce } from "../support/browser";
import { putFile } from "../support/files";
import { joinInBrowser } from "../support/guest-page";
import { createWorkspace, openWorkspace, ownerApi } from "../support/session";
import { connected, hook } from "../support/terminal-page";

let browser: Browser;
let id: string;
let owner: Page;
let guest: Page;
const errors: { owner: string[]; guest: string[] } = { owner: [], guest: [] };

const LONG = Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join("\n");

beforeAll(async () => {
  browser = await launchBrowser();
  id = await createWorkspace("presence", "empty");
  expect((await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" })).status).toBe(200);
  for (const [path, text] of [
    ["long.txt", `${LONG}\n`],
    ["short.txt", "a short file\n"],
    ["third.txt", "a third file\n"],
    ["docs/inner.txt", "inside a folder\n"],
  ]) {
    expect((await putFile(id, path as string, text as string)).status).toBe(200);
  }
  await loadAppOnce(browser);
}, 300_000);

afterAll(async () => {
  await browser?.close();
});

const avatar = (page: Page, name: string) => page.locator(`[data-testid="presence-avatar"][data-name="${name}"]`);
const treeRow = (page: Page, path: string) => page.locator(`[data-testid="file-tree"] [data-path="${path}"]`);
const activeTab = (page: Page) =>
  page.locator('[data-testid="editor-tab"][aria-selected="true"]').getAttribute("data-path");
const topLine = (page: Page) => hook<number | undefined>(page, "editorTopLine");

describe("presence", () => {
  it("shows the owner and an invited guest to each other in the header, with names", async () => {
    ({ page: owner, errors: errors.owner } = await openWorkspace(browser, id));
    await connected(owner);
    ({ page: guest, errors: errors.guest } = await joinInBrowser(browser, id, "viewer", "Grace Hopper"));

    // The password owner's name is "owner".
    await avatar(owner, "Grace Hopper").waitFor();
    expect(await avatar(owner, "Grace Hopper").textContent()).toBe("GH");
    expect(await avatar(owner, "Grace Hopper").getAttribute("title")).toContain("Grace Hopper");
    await avatar(guest, "owner").waitFor();
    expect(await avatar(guest, "owner").textContent()).toBe("O");
    // Nobody sees themselves.
    expect(await owner.getByTestId("presence-avatar").count()).toBe(1);
    expect(await guest.getByTestId("presence-avatar").count()).toBe(1);
  }, 300_000);

  it("marks the file the owner opens in the guest's tree", async () => {
    await treeRow(owner, "long.txt").click();
    await expect.poll(() => activeTab(owner), { timeout: 30_000 }).toBe("long.txt");
    const mark = treeRow(guest, "long.txt").getByTestId("tree-presence");
    await mark.waitFor();
    expect(await mark.getAttribute("title")).toBe("Open by owner");
    expect(await treeRow(guest, "short.txt").getByTestId("tree-presence").count()).toBe(0);

    // A file inside a folder: the guest's folder, collapsed, says someone has a file open in it.
    expect(await treeRow(guest, "docs").getByTestId("tree-presence").count()).toBe(0);
    await treeRow(owner, "docs").click();
    await treeRow(owner, "docs/inner.txt").click();
    await expect.poll(() => activeTab(owner), { timeout: 30_000 }).toBe("docs/inner.txt");
    const folderMark = treeRow(guest, "docs").getByTestId("tree-presence");
    await folderMark.waitFor();
    expect(await folderMark.getAttribute("title")).toBe("Open inside by owner");
    await treeRow(owner, "long.txt").click();
    await expect.poll(() => activeTab(owner), { timeout: 30_000 }).toBe("long.txt");
  }, 120_000);

  it("follows the owner: their file at their line, then their next file, until the guest moves", async () => {
    // The owner scrolls down the long file.
    await owner.locator('[data-testid="code-editor"] .cm-scroller').hover();
    await owner.mouse.wheel(0, 2000);
    await expect.poll(() => topLine(owner), { timeout: 30_000 }).toBeGreaterThan(40);
    // Their line reaches the guest (the avatar's tooltip says where they are), and settles.
    let ownerLine = 0;
    await expect
      .poll(
        async () => {
          ownerLine = (await topLine(owner)) ?? 0;
          return (await avatar(guest, "owner").getAttribute("title"))?.includes(`long.txt:${ownerLine} `);
        },
        { timeout: 30_000 },
      )
      .toBe(true);

    await avatar(guest, "owner").click();
    await guest.getByTestId("follow-bar").waitFor();
    expect(await guest.getByTestId("follow-bar").textContent()).toContain("Following owner");
    await expect.poll(() => activeTab(guest), { timeout: 30_000 }).toBe("long.txt");
    await expect.poll(() => topLine(guest), { timeout: 30_000 }).toBeGreaterThanOrEqual(ownerLine - 1);
    expect(await topLine(guest)).toBeLessThanOrEqual(ownerLine + 1);

    // The owner opens another file: the guest's editor goes along.
    await treeRow(owner, "short.txt").click();
    await expect.poll(() => activeTab(guest), { timeout: 30_000 }).toBe("short.txt");
    expect(await guest.getByTestId("follow-bar").isVisible()).toBe(true);

    // The guest's own presence socket drops and comes back: following goes on.
    await hook(guest, "dropPresenceSocket");
    expect(await guest.getByTestId("follow-bar").isVisible()).toBe(true);
    expect(await guest.getByTestId("follow-stopped").count()).toBe(0);
    // Back in step, each sees the other again without either having moved (their states' clocks did not change).
    expect(await avatar(guest, "owner").count()).toBe(1);
    await avatar(owner, "Grace Hopper").waitFor({ timeout: 10_000 });
    await treeRow(owner, "docs/inner.txt").click();
    await expect.poll(() => activeTab(guest), { timeout: 30_000 }).toBe("docs/inner.txt");
    await treeRow(owner, "short.txt").click();
    await expect.poll(() => activeTab(guest), { timeout: 30_000 }).toBe("short.txt");

    // The guest scrolls themselves: following stops, and says so.
    await guest.locator('[data-testid="code-editor"] .cm-scroller').hover();
    await guest.mouse.wheel(0, 100);
    await guest.getByTestId("follow-stopped").waitFor();
    expect(await guest.getByTestId("follow-stopped").textContent()).toContain("stopped following owner");
    expect(await guest.getByTestId("follow-bar").count()).toBe(0);
    // The owner moves on; the guest's tree sees it, the guest's editor stays.
    await treeRow(owner, "third.txt").click();
    await treeRow(guest, "third.txt").getByTestId("tree-presence").waitFor();
    expect(await guest.locator('[data-testid="editor-tab"][data-path="third.txt"]').count()).toBe(0);
    expect(await activeTab(guest)).toBe("short.txt");
  }, 180_000);

  it("shows on each terminal tab who else watches it; the viewer's terminal stays read-only", async () => {
    await connected(guest);
    const ownerWatching = guest.getByTestId("terminal-watchers-main");
    await ownerWatching.waitFor();
    expect(await ownerWatching.getAttribute("title")).toBe("Also watching main: owner");
    const guestWatching = owner.getByTestId("terminal-watchers-main");
    await guestWatching.waitFor();
    expect(await guestWatching.getAttribute("title")).toBe("Also watching main: Grace Hopper");
    expect(await guest.getByTestId("terminal-read-only").textContent()).toBe("Read-only");
  }, 120_000);

  it("fits the phone layout's header", async () => {
    for (const [page, other] of [
      [guest, "owner"],
      [owner, "Grace Hopper"],
    ] as const) {
      await page.setViewportSize({ width: 390, height: 844 });
      await avatar(page, other).waitFor();
      const header = await page.locator(".workspace-header").evaluate((element) => ({
        scroll: element.scrollWidth,
        client: element.clientWidth,
        children: Array.from(element.children).map(
          (child) => `${child.className || child.tagName}:${Math.round(child.getBoundingClientRect().width)}`,
        ),
      }));
      expect(header.scroll, JSON.stringify(header)).toBeLessThanOrEqual(header.client + 1);
      const box = await avatar(page, other).boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 390, JSON.stringify(box)).toBe(true);
      await page.setViewportSize({ width: 1400, height: 900 });
    }
    expect(errors.guest).toEqual([]);
  }, 60_000);

  it("takes a removed guest out of the owner's header", async () => {
    // The guest's files (they followed the owner into two) are marked in the owner's tree until then.
    await treeRow(owner, "long.txt").getByTestId("tree-presence").waitFor();
    await owner.getByTestId("terminal-watchers-main").waitFor();
    const response = await ownerApi(`/api/workspaces/${id}/members`);
    expect(response.status).toBe(200);
    const { members } = (await response.json()) as MemberList;
    const member = members.find((m) => m.name === "Grace Hopper");
    expect(member).toBeDefined();
    const removed = await ownerApi(`/api/workspaces/${id}/members/${encodeURIComponent(member?.id ?? "")}`, {
      method: "DELETE",
    });
    expect(removed.status).toBe(204);
    await expect.poll(() => avatar(owner, "Grace Hopper").count(), { timeout: 30_000 }).toBe(0);
    expect(await owner.getByTestId("terminal-watchers-main").count()).toBe(0);
    expect(await treeRow(owner, "long.txt").getByTestId("tree-presence").count()).toBe(0);

    expect(errors.owner).toEqual([]);
    await owner.context().close();
    await guest.context().close();
  }, 120_000);
});
