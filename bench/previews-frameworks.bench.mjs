// Previews of real frameworks (issue 43): for each row of the compatibility
// matrix (test/frameworks/rows.ts), the app made and run exactly as the
// matrix makes it (test/frameworks/apps.mjs: the generator and the default
// dev command typed into a terminal), then, by turns:
//   - ours: the page's first render through the IDE's preview hostname in
//     Chromium, a fresh browser context each turn (nothing cached), timed
//     from navigation to the row's text being visible;
//   - the reference: the same page fetched inside the container,
//     `curl -so /dev/null -w %{time_total} http://127.0.0.1:PORT/`.
// The dev server's first compile is not in the turns: one load after the
// port listens (its own row) warms it up, as a person's first look does.
// Rows are made four at a time (their installs overlap), then measured one
// at a time with nothing installing. A row that fails (a generator, an
// install, a start, a render) is reported n/a with why, and the next goes on.
//   FRAMEWORKS_ROWS unset: a representative set (DEFAULT_ROWS, ~15 minutes);
//   FRAMEWORKS_ROWS=all: every row (~30 minutes);
//   FRAMEWORKS_ROWS=vanilla,python: rows whose names contain one of these.
//   BENCH_FRAMEWORKS_TURNS: turns per row (10).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import WebSocket from "ws";
import {
  makeApp,
  npmCacheBind,
  ownerPreview,
  START_TIMEOUT_MS,
  selectRows,
  startWorkspace,
} from "../test/frameworks/apps.mjs";
import { ROWS } from "../test/frameworks/rows.ts";
import { alternate, percentileName } from "./lib/alternate.mjs";
import { launchChromium } from "./lib/browser.mjs";
import { signIn } from "./lib/session.mjs";
import { median, percentile } from "./lib/stats.mjs";
import { findContainer } from "./lib/workspace-container.mjs";

export const title = "Previews of real frameworks (first render in Chromium vs curl inside the container)";

/** The matrix's npm cache volume in this IDE's workspace containers: installs come from it, as in the tier. */
export function appBinds() {
  return [npmCacheBind()];
}

/**
 * Every row takes ~30 minutes on the shared 2-core machine (Next.js and
 * Angular alone install for 4-6 minutes), so by default a set that covers
 * each kind: plain Vite, Vite with React, Vue and Svelte, Next.js,
 * SvelteKit, and a plain server.
 */
const DEFAULT_ROWS = [
  "create-vite vanilla",
  "create-vite react",
  "create-vite vue",
  "create-vite svelte",
  "create-next-app",
  "sv create (SvelteKit)",
  "python3 -m http.server",
];
const TURNS = Number(process.env.BENCH_FRAMEWORKS_TURNS ?? 10);
/** Apps made side by side: their installs overlap, as in the matrix (maxConcurrency 4). */
const BATCH = 4;
/** One render may take this long before it counts as failed. */
const RENDER_TIMEOUT_MS = 60_000;
/** The first load compiles the page's client code (Next.js took a minute in the matrix's runs). */
const WARM_UP_TIMEOUT_MS = 3 * 60_000;
/** A workspace's start (three tries) may take this long. */
const WORKSPACE_TIMEOUT_MS = 5 * 60_000;
/** Making an app: START_TIMEOUT_MS to listen, then up to 5 minutes to answer (apps.mjs), and a margin. */
const APP_TIMEOUT_MS = START_TIMEOUT_MS + 6 * 60_000;
/** A row's measurement (the warm-up load and the turns) may take this long. */
const MEASURE_TIMEOUT_MS = 10 * 60_000;

const execFileAsync = promisify(execFile);

export async function run({ baseUrl, workerName }) {
  const rows = chooseRows(process.env.FRAMEWORKS_ROWS);
  console.log(`  rows: ${rows.map((row) => row.name).join(", ")}; ${TURNS} turns each`);
  const session = await signIn(baseUrl);
  const client = {
    api: (path, init) => session.fetch(path, init),
    webSocket: (path) => {
      const url = new URL(path, baseUrl);
      url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
      return new WebSocket(url, { headers: { Origin: baseUrl, Cookie: session.cookie } });
    },
  };
  const started = Date.now();
  const browser = await launchChromium();
  const results = [];
  try {
    // The rows with the longest installs (a bigger machine) first, so a batch's wait is theirs.
    const order = [...rows].sort((a, b) => Number(Boolean(b.machine)) - Number(Boolean(a.machine)));
    for (let i = 0; i < order.length; i += BATCH) {
      const batch = order.slice(i, i + BATCH).map((row) => ({ row }));
      try {
        await makeBatch(client, batch);
        for (const entry of batch) {
          const result = entry.error
            ? { row: entry.row, error: entry.error }
            : await withDeadline(measure(session, client, browser, workerName, entry), MEASURE_TIMEOUT_MS, "measuring")
                .then((figures) => ({ row: entry.row, ...figures }))
                .catch((error) => ({ row: entry.row, error }));
          results.push(result);
          console.log(`  ${summary(result)}`);
          await removeApp(session, entry);
        }
      } finally {
        for (const entry of batch) await removeApp(session, entry);
      }
    }
  } finally {
    await browser.close();
  }
  console.log(`  ${rows.length} rows in ${Math.round((Date.now() - started) / 1000)} s`);
  return results.flatMap(tableRows);
}

function chooseRows(filter) {
  if (filter === "all") return ROWS;
  if (filter) return selectRows(filter);
  return ROWS.filter((row) => DEFAULT_ROWS.includes(row.name));
}

/**
 * Starts each row's workspace one at a time (several container starts while
 * others install miss workerd's deadline for the network sidecar on two
 * cores), then makes the apps side by side. A failure stays on its row.
 */
async function makeBatch(client, batch) {
  for (const entry of batch) {
    try {
      await withDeadline(
        startWorkspace(client, entry.row, `bench frameworks ${entry.row.name}`, (id) => {
          entry.id = id;
        }),
        WORKSPACE_TIMEOUT_MS,
        "starting the workspace",
      );
    } catch (error) {
      entry.error = error;
    }
  }
  await Promise.all(
    batch
      .filter((entry) => !entry.error)
      .map(async (entry) => {
        try {
          entry.app = await withDeadline(makeApp(client, entry.id, entry.row), APP_TIMEOUT_MS, "making the app");
          console.log(`  ${entry.row.name}: listening after ${entry.app.startSeconds} s (generate + install + start)`);
        } catch (error) {
          entry.error = error;
        }
      }),
  );
}

/** The warm-up load, then TURNS first renders and TURNS curls by turns. */
async function measure(session, client, browser, workerName, { row, id, app }) {
  const container = await findContainer(session, id, workerName);
  const curlUrl = await curlTarget(container, row.port);
  // Renewed: an owner grant lasts 5 minutes, and this app may have waited longer for the batch's others.
  let grant = await ownerPreview(client, id, row.port, app.grant.id);
  const warmUp = await render(browser, grant.url, row.shows, WARM_UP_TIMEOUT_MS);
  if (warmUp.error) throw new Error(`the first load after the start: ${warmUp.error}`);
  const failures = [];
  const requests = [];
  let networkChanges = warmUp.networkChanges;
  const [renders, curls] = await alternate(
    TURNS,
    async () => {
      // The owner's grant lasts 5 minutes past a renewal, as the pane renews it (the same URL); not timed.
      grant = await ownerPreview(client, id, row.port, grant.id);
      const load = await render(browser, grant.url, row.shows, RENDER_TIMEOUT_MS);
      networkChanges += load.networkChanges;
      if (load.error) failures.push(load.error);
      else requests.push(load.requests);
      return load.ms;
    },
    () => curl(container, curlUrl),
    { settleMs: 200 },
  );
  return { warmUpMs: warmUp.ms, renders, curls, requests, failures, networkChanges, startSeconds: app.startSeconds };
}

/**
 * One page load in a fresh browser context (no cache, no cookies), timed
 * from navigation to the row's text being visible. Chromium fails requests
 * in flight when Docker adds a network interface (any container starting on
 * this shared machine): a load that met such a change is made again (twice
 * at most) and counted; any other failure is a failed load, in the times
 * with how long it took to fail.
 */
async function render(browser, url, text, timeoutMs) {
  let networkChanges = 0;
  for (let attempt = 1; ; attempt++) {
    const context = await browser.newContext();
    let changed = false;
    try {
      const page = await context.newPage();
      // What the page asks for in the load (the document, its modules, styles, images): what the render waits on.
      let requests = 0;
      page.on("response", () => requests++);
      page.on("requestfailed", (request) => {
        if (request.failure()?.errorText.includes("ERR_NETWORK_CHANGED")) changed = true;
      });
      const started = performance.now();
      try {
        await page.goto(url, { waitUntil: "commit", timeout: timeoutMs });
        await page
          .getByText(text)
          .first()
          .waitFor({ timeout: Math.max(1, timeoutMs - (performance.now() - started)) });
        const ms = performance.now() - started;
        // Nothing of this load in flight when the next one starts.
        await page.waitForLoadState("networkidle", { timeout: 15_000 }).catch(() => {});
        return { ms, networkChanges, requests };
      } catch (error) {
        const message = String(error).split("\n")[0];
        if ((changed || message.includes("ERR_NETWORK_CHANGED")) && attempt < 3) {
          networkChanges++;
          continue;
        }
        return { ms: performance.now() - started, error: message, networkChanges };
      }
    } finally {
      await context.close();
    }
  }
}

/**
 * The address the dev server answers on inside the container: 127.0.0.1,
 * or ::1 for a server on `localhost` that took the IPv6 loopback only.
 */
async function curlTarget(container, port) {
  const tried = [];
  for (const host of ["127.0.0.1", "[::1]"]) {
    const url = `http://${host}:${port}/`;
    const { code } = await curlOnce(container, url);
    if (code >= 200 && code < 400) return url;
    tried.push(`${url} answered ${code || "nothing"}`);
  }
  throw new Error(`curl inside the container: ${tried.join(", ")}`);
}

/** curl's own time for the whole transfer, in ms (the `docker exec` around it not counted). */
async function curl(container, url) {
  const { code, ms } = await curlOnce(container, url);
  if (code < 200 || code >= 400) throw new Error(`curl ${url} inside the container answered ${code}`);
  return ms;
}

async function curlOnce(container, url) {
  const args = ["exec", container, "curl", "-so", "/dev/null", "--max-time", "30", "-w", "%{http_code} %{time_total}"];
  // curl exits non-zero when it cannot connect; what it wrote with -w still says so (000).
  const { stdout } = await execFileAsync("docker", [...args, url], { timeout: 45_000 }).catch((error) => {
    if (typeof error?.stdout === "string" && error.stdout.trim()) return { stdout: error.stdout };
    throw error;
  });
  const [code = "0", total = "NaN"] = stdout.trim().split(" ");
  return { code: Number(code), ms: Number(total) * 1000 };
}

/** Rejects when `promise` has not settled in `ms` (what it was doing then goes on, and ends with its workspace). */
function withDeadline(promise, ms, what) {
  let timer;
  const deadline = new Promise((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

async function removeApp(session, entry) {
  if (entry.removed || !entry.id) return;
  entry.removed = true;
  entry.app?.terminal.close();
  await session.fetch(`/api/workspaces/${entry.id}`, { method: "DELETE" }).catch(() => {});
}

function reason(error) {
  return (
    String(error?.message ?? error)
      .split("\n")[0]
      ?.slice(0, 160) ?? "failed"
  );
}

function summary(result) {
  if (result.error) return `${result.row.name}: n/a (${reason(result.error)})`;
  const p50 = percentile(result.renders, 50).toFixed(0);
  const curlP50 = percentile(result.curls, 50).toFixed(1);
  const loads = requests(result).join("");
  return `${result.row.name}: first render p50 ${p50} ms (${loads}), curl p50 ${curlP50} ms, warm-up ${result.warmUpMs.toFixed(0)} ms`;
}

/** How many requests a load made (the median), the figure that tells a render from a document. */
function requests(result) {
  return result.requests.length > 0 ? [`${median(result.requests)} requests a load`] : [];
}

function tableRows(result) {
  const name = result.row.name;
  if (result.error) {
    return [{ metric: `${name}: first render`, ours: Number.NaN, unit: "ms", target: `n/a: ${reason(result.error)}` }];
  }
  const notes = requests(result);
  if (result.failures.length > 0) notes.push(`${result.failures.length} failed: ${result.failures[0]}`);
  if (result.networkChanges > 0) notes.push(`${result.networkChanges} loads made again after a network change`);
  return [
    {
      metric: `${name}: first render p50 of ${TURNS} (fresh context)`,
      ours: percentile(result.renders, 50),
      reference: percentile(result.curls, 50),
      referenceName: "curl inside the container",
      unit: "ms",
      target: notes.join("; "),
    },
    {
      metric: `${name}: first render ${percentileName(95, TURNS)}`,
      ours: percentile(result.renders, 95),
      reference: percentile(result.curls, 95),
      referenceName: "curl inside the container",
      unit: "ms",
    },
    {
      metric: `${name}: first load after the start (dev server's compile)`,
      ours: result.warmUpMs,
      unit: "ms",
      target: `generate + install + start ${result.startSeconds} s`,
    },
  ];
}
