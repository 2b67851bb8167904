/**
 * The compatibility matrix (issue 43): apps made with real generators from
 * the npm registry, each in a workspace of its own, run with their default
 * dev command typed into a terminal, and previewed in Chromium. Per row:
 *   - the preview renders the page;
 *   - every request of the page answers (no 4xx or 5xx, none failed);
 *   - a share link shows the page in a fresh browser context, with no cookies;
 *   - the hot-reload WebSocket is still open a minute after the page loaded,
 *     and an edit made then shows in the page with no reload.
 * Rows run side by side (vitest.config.ts's maxConcurrency), so their
 * minutes overlap. What each row showed goes to .cache/frameworks/last-run.json
 * (the README's table is made from it).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page, WebSocket as PageSocket } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ShareLink } from "../../protocol/previews";
import { ROOT } from "../../scripts/lib/setup.mjs";
import { launchBrowser } from "../support/browser";
import { filesUrl, putFile } from "../support/files";
import { createShare } from "../support/previews";
import { ownerApi, ownerWebSocket } from "../support/session";
import { makeApp, type OwnerClient, ownerPreview, selectRows, startWorkspace } from "./apps.mjs";
import { EDITED_OUTLINE, type HotEdit, type Row } from "./rows";

/** The hot-reload socket must outlast this. */
const SOCKET_MINUTE_MS = 60_000;

/** "reload": the edit showed through the page reloading, as the framework does it (Row.reloads). */
type Outcome = "pass" | "fail" | "reload" | "n/a" | "not run";
interface RowResult {
  renders: Outcome;
  assets: Outcome;
  hot: Outcome;
  share: Outcome;
  socket: Outcome;
  /** From typing the command to the port listening (generate + install + start). */
  startSeconds?: number;
  /** From the port listening to the page rendered in the browser. */
  firstRenderSeconds?: number;
  problems: string[];
}

/** `FRAMEWORKS_ROWS=vanilla,python`: only the rows whose names contain one of these (while working on some). */
const rows = selectRows(process.env.FRAMEWORKS_ROWS);
/** Rows with the longest installs (a bigger machine) start first, so the tier ends when the light ones do. */
const runOrder = [...rows].sort((a, b) => Number(Boolean(b.machine)) - Number(Boolean(a.machine)));

const started = Date.now();
const results = new Map<string, RowResult>();
const workspaces: string[] = [];
let browser: Browser;
/** The apps are made the way the previews bench makes them (./apps.mjs), as the owner. */
const owner: OwnerClient = { api: ownerApi, webSocket: ownerWebSocket };

/** Each row's workspace, started one at a time in beforeAll. */
const ready = new Map<string, Promise<string>>();

beforeAll(async () => {
  browser = await launchBrowser();
  // Every container starts before any row runs: a start while other rows install (next, ng) on two
  // shared cores missed workerd's deadline for the network sidecar again and again.
  for (const row of runOrder) {
    const start = startWorkspace(owner, row, `matrix ${row.name}`, (id) => workspaces.push(id));
    ready.set(row.name, start);
    // A failed start fails its row (which awaits it), not the others.
    await start.catch(() => {});
  }
}, 15 * 60_000);

afterAll(async () => {
  const report = {
    finishedAt: new Date().toISOString(),
    tierSeconds: Math.round((Date.now() - started) / 1000),
    rows: Object.fromEntries(rows.map((row) => [row.name, results.get(row.name) ?? notRun()])),
  };
  const dir = join(ROOT, ".cache/frameworks");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "last-run.json"), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`frameworks matrix: ${report.tierSeconds} s\n${table(report.rows)}`);
  await browser?.close();
  // Those a failed beforeAll left (a row deletes its own; 404 then).
  for (const id of workspaces) await ownerApi(`/api/workspaces/${id}`, { method: "DELETE" });
});

describe("the frameworks matrix", () => {
  for (const row of runOrder) {
    it.concurrent(row.name, async () => {
      const result: RowResult = { ...notRun(), problems: [] };
      results.set(row.name, result);
      try {
        await runRow(row, result);
      } finally {
        // Its container's memory goes back for the rows still to run.
        const id = await ready.get(row.name)?.catch(() => undefined);
        if (id) await ownerApi(`/api/workspaces/${id}`, { method: "DELETE" });
      }
    });
  }
});

function notRun(): RowResult {
  return { renders: "not run", assets: "not run", hot: "not run", share: "not run", socket: "not run", problems: [] };
}

async function runRow(row: Row, result: RowResult): Promise<void> {
  const id = await ready.get(row.name);
  if (!id) throw new Error(`no workspace was started for ${row.name}`);
  // Typed into a terminal as a person types it, until the port listens and the preview answers.
  const app = await makeApp(owner, id, row);
  const { terminal, listeningAt } = app;
  let { grant } = app;
  result.startSeconds = app.startSeconds;

  // The owner's preview, as the pane's frame loads it.
  const context = await browser.newContext();
  context.setDefaultTimeout(120_000);
  const page = await context.newPage();
  const requests = recordRequests(page);
  const sockets: PageSocket[] = [];
  page.on("websocket", (socket) => sockets.push(socket));
  let loads = 0;
  page.on("load", () => loads++);
  result.renders = "fail";
  await loadUntilShown(page, grant.url, row.shows, requests, () => {
    sockets.length = 0;
  });
  const loadedAt = Date.now();
  result.firstRenderSeconds = seconds(listeningAt);
  result.renders = "pass";
  result.problems.push(...requests.problems);
  result.assets = requests.problems.length === 0 && requests.count() > 0 ? "pass" : "fail";

  // A share link, in a browser context of its own: no cookies, no session.
  result.share = "fail";
  const response = await createShare(id, row.port);
  expect(response.status).toBe(201);
  const share = (await response.json()) as ShareLink;
  const visitor = await browser.newContext();
  visitor.setDefaultTimeout(120_000);
  expect(await visitor.cookies()).toEqual([]);
  const visit = await visitor.newPage();
  await loadUntilShown(visit, share.url, row.shows, recordRequests(visit));
  result.share = "pass";
  await visitor.close();

  // A minute after the page loaded: its hot-reload socket is still open, and an edit shows with no reload.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, loadedAt + SOCKET_MINUTE_MS - Date.now())));
  grant = await ownerPreview(owner, id, row.port, grant.id);
  if (row.hot) {
    result.hot = "fail";
    const open = sockets.filter((socket) => !socket.isClosed());
    result.socket = open.length > 0 ? "pass" : "fail";
    if (open.length === 0) result.problems.push(`no open WebSocket after a minute (${sockets.length} opened)`);
    const loadsBefore = loads;
    await acrossReloads(page, () => page.evaluate(() => Object.assign(window, { matrixMarker: "still this page" })));
    await applyEdit(id, row.hot);
    await untilEdited(page, row.hot);
    const marker = await acrossReloads(page, () =>
      page.evaluate(() => (window as { matrixMarker?: string }).matrixMarker),
    );
    const inPlace = marker === "still this page" && loads === loadsBefore;
    result.hot = inPlace ? "pass" : row.reloads ? "reload" : "fail";
    if (result.hot === "fail") result.problems.push("the edit showed only through a reload");
  } else {
    result.hot = "n/a";
    result.socket = "n/a";
  }
  await context.close();
  terminal.close();

  expect(result.problems).toEqual([]);
  expect(result).toMatchObject({ renders: "pass", assets: "pass", share: "pass" });
  if (row.hot) expect(result).toMatchObject({ hot: row.reloads ? "reload" : "pass", socket: "pass" });
}

/**
 * Loads `url` until the page shows `text` and is quiet. Chromium fails
 * requests in flight when Docker adds a network interface (any container
 * starting on this machine; test/support/browser.ts): a load that met such a
 * change, and no other failure, is made again, three times at most. What
 * the last load's requests met stays in `requests.problems`.
 */
async function loadUntilShown(
  page: Page,
  url: string,
  text: string,
  requests: ReturnType<typeof recordRequests>,
  beforeEach = () => {},
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    requests.problems.length = 0;
    beforeEach();
    try {
      await page.goto(url);
      await page.getByText(text).first().waitFor({ timeout: 120_000 });
      await page.waitForLoadState("networkidle").catch(() => {});
    } catch (error) {
      if (attempt < 3 && (isNetworkChange(String(error)) || requests.problems.some(isNetworkChange))) continue;
      throw new Error(`${error}\nrequests that failed: ${requests.problems.join("; ") || "none"}`);
    }
    const changed = requests.problems.filter(isNetworkChange);
    if (changed.length === 0 || changed.length < requests.problems.length || attempt === 3) return;
  }
}

function isNetworkChange(text: string): boolean {
  return text.includes("ERR_NETWORK_CHANGED");
}

/** Records each request of the page that answered 4xx/5xx or failed (a cancelled one is not a failure). */
function recordRequests(page: Page) {
  const problems: string[] = [];
  let count = 0;
  page.on("response", (response) => {
    count++;
    if (response.status() >= 400)
      problems.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  page.on("requestfailed", (request) => {
    const reason = request.failure()?.errorText ?? "failed";
    if (!reason.includes("ERR_ABORTED")) problems.push(`${reason} ${request.url()}`);
  });
  return { problems, count: () => count };
}

/** The edit, made through the files API as the editor saves. */
async function applyEdit(id: string, edit: HotEdit): Promise<void> {
  const read = await ownerApi(filesUrl(id, "/content", { path: edit.file }));
  expect(read.status, edit.file).toBe(200);
  const before = await read.text();
  let after: string;
  if (edit.kind === "text") {
    expect(before, edit.file).toContain(edit.from);
    after = before.replace(edit.from, edit.to);
  } else {
    after = `${before}\nh1 { outline: 3px solid ${EDITED_OUTLINE}; }\n`;
  }
  expect((await putFile(id, edit.file, after)).status).toBeLessThan(300);
}

/**
 * Runs `read` on the page, again after a load if a reload the framework
 * made itself destroyed the page it ran in (Qwik reloads on every edit, at
 * times twice). The reload is still counted: `loads` sees it.
 */
async function acrossReloads<T>(page: Page, read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= 5 || !String(error).includes("Execution context was destroyed")) throw error;
      await page.waitForLoadState("load");
    }
  }
}

async function untilEdited(page: Page, edit: HotEdit): Promise<void> {
  if (edit.kind === "text") {
    await page.getByText(edit.to).first().waitFor({ timeout: 60_000 });
    return;
  }
  await page.waitForFunction(
    (colour) => {
      const h1 = document.querySelector("h1");
      return h1 !== null && getComputedStyle(h1).outlineColor === colour;
    },
    EDITED_OUTLINE,
    { timeout: 60_000 },
  );
}

function seconds(since: number): number {
  return Math.round((Date.now() - since) / 100) / 10;
}

/** The README's table: framework × renders / assets / HMR / share. */
function table(rows: Record<string, RowResult>): string {
  const mark = (outcome: Outcome) =>
    ({ pass: "yes", fail: "**no**", reload: "reloads", "n/a": "n/a", "not run": "not run" })[outcome];
  const lines = ["| App | Renders | Assets | HMR (a minute on) | Share link |", "| --- | --- | --- | --- | --- |"];
  for (const [name, r] of Object.entries(rows)) {
    lines.push(`| ${name} | ${mark(r.renders)} | ${mark(r.assets)} | ${mark(r.hot)} | ${mark(r.share)} |`);
  }
  return lines.join("\n");
}
