// Previews: a request through the preview hostname (Worker -> Durable Object
// -> container.getTcpPort) against the same request straight to the same dev
// server (through the network sidecar's relay, as workerd reaches it, but
// without the Worker and the Durable Object), from the same Node client; whole page loads
// of the template app in Chromium (reloads and new tabs, as users load it),
// counting failed answers and failed loads and timing the app's first render
// (a failed load in the times too); and the time from saving src/App.tsx to
// the preview's DOM changing. Chromium loads both ways, by turns: through the
// preview hostname and straight from the dev server.
import { execFileSync } from "node:child_process";
import { lookup } from "node:dns";
import { Agent, request } from "node:http";
import { alternate, percentileName } from "./lib/alternate.mjs";
import { launchChromium } from "./lib/browser.mjs";
import { tunnelToContainerPort } from "./lib/dev-server-tunnel.mjs";
import { signIn } from "./lib/session.mjs";
import { percentile } from "./lib/stats.mjs";

export const title = "Previews (template dev server, npm run dev)";

const REQUESTS = 60;
const EDITS = 5;
const PAGE_LOADS = 50;
const PATH = "/src/App.tsx";

export async function run({ baseUrl, workerName }) {
  const session = await signIn(baseUrl);
  const api = session.fetch;
  const { id } = await session.json("/api/workspaces", { method: "POST", body: { name: "bench previews" } });
  let tunnel;
  try {
    await api(`/api/workspaces/${id}/previews/dev-server`, { method: "POST" });
    await waitFor(async () => {
      const overview = await (await api(`/api/workspaces/${id}/previews`)).json();
      if (overview.devServer.state === "exited") throw new Error(`dev server exited: ${overview.devServer.output}`);
      return overview.ports.some((p) => p.port === 5173);
    }, 120_000);
    const owner = await (await api(`/api/workspaces/${id}/previews/5173`, { method: "POST" })).json();
    const previewHost = new URL(owner.url).host;
    const container = findContainer(workerName);
    tunnel = await tunnelToContainerPort(container, 5173);
    const directUrl = tunnel.url;

    // Same client, same kind of keep-alive agent, same path; the preview Host on both; by turns.
    const throughPreview = await requester(new URL(PATH, owner.url).toString(), previewHost);
    const straight = await requester(`${directUrl}${PATH}`, previewHost);
    const [viaPreview, direct] = await alternate(REQUESTS, throughPreview.get, straight.get);
    throughPreview.close();
    straight.close();
    // Where the time goes: the same client to the IDE's Worker alone (vite dev + workerd, no Durable Object).
    const health = await requester(new URL("/api/health", baseUrl).toString(), new URL(baseUrl).host);
    const workerOnly = [];
    for (let i = 0; i < REQUESTS; i++) workerOnly.push(await health.get());
    health.close();
    const browser = await launchChromium();
    let pages;
    let hmr;
    try {
      // Before the hot reloads, which change the page's text.
      pages = await timePageLoads(browser, { viaPreview: owner.url, direct: `${directUrl}/` });
      hmr = await timeHotReloads(browser, container, owner.url, directUrl);
    } finally {
      await browser.close();
    }

    return [
      {
        metric: `GET ${PATH} p50 (${REQUESTS} requests)`,
        ours: percentile(viaPreview, 50),
        reference: percentile(direct, 50),
        referenceName: "straight to the dev server",
        unit: "ms",
        target: `proxy adds < 5 ms (adds ${(percentile(viaPreview, 50) - percentile(direct, 50)).toFixed(1)})`,
      },
      {
        metric: `GET ${PATH} ${percentileName(95, REQUESTS)}`,
        ours: percentile(viaPreview, 95),
        reference: percentile(direct, 95),
        referenceName: "straight to the dev server",
        unit: "ms",
      },
      {
        metric: "GET /api/health p50 (IDE Worker alone, for scale)",
        ours: percentile(workerOnly, 50),
        unit: "ms",
      },
      {
        metric: `page loads (${PAGE_LOADS}, reloads and new tabs): failed answers`,
        ours: pages.viaPreview.failed,
        reference: pages.direct.failed,
        referenceName: "straight from the dev server",
        unit: "",
        target: `0 (${pages.viaPreview.answers} answers through the preview)`,
      },
      {
        metric: `page loads (${PAGE_LOADS}) that never rendered the app`,
        ours: pages.viaPreview.failedLoads,
        reference: pages.direct.failedLoads,
        referenceName: "straight from the dev server",
        unit: "",
        target: "0",
      },
      {
        // A load that failed counts in the percentiles with the time it took to fail (at least the 30 s wait).
        metric: `page load -> app rendered, p50 of ${PAGE_LOADS} (failed loads included)`,
        ours: percentile(pages.viaPreview.times, 50),
        reference: percentile(pages.direct.times, 50),
        referenceName: "straight from the dev server",
        unit: "ms",
      },
      {
        metric: `page load -> app rendered, ${percentileName(95, PAGE_LOADS)} (failed loads included)`,
        ours: percentile(pages.viaPreview.times, 95),
        reference: percentile(pages.direct.times, 95),
        referenceName: "straight from the dev server",
        unit: "ms",
      },
      {
        metric: `save src/App.tsx -> preview DOM changed, p50 of ${EDITS}`,
        ours: percentile(hmr.viaPreview, 50),
        reference: percentile(hmr.direct, 50),
        referenceName: "page straight from the dev server, same saves",
        unit: "ms",
        target: "< 1000 ms",
      },
    ];
  } finally {
    await tunnel?.close();
    await api(`/api/workspaces/${id}/previews/dev-server`, { method: "DELETE" }).catch(() => {});
    await api(`/api/workspaces/${id}`, { method: "DELETE" }).catch(() => {});
  }
}

async function waitFor(check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("timed out");
}

function findContainer(workerName) {
  const names = execFileSync("docker", ["ps", "--format", "{{.Names}}", "--filter", `name=workerd-${workerName}-`], {
    encoding: "utf8",
  })
    .split("\n")
    .filter((n) => n && !n.endsWith("-proxy"));
  if (names.length !== 1) throw new Error(`expected one workspace container, found ${names.join(", ") || "none"}`);
  return names[0];
}

const localhostLookup = (hostname, options, callback) =>
  lookup(hostname.endsWith(".localhost") ? "localhost" : hostname, options, callback);

/** Timed GETs of `url` (warmed up first) over one keep-alive connection: `get()` answers one duration. */
async function requester(url, host) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const req = request(url, { agent, headers: { Host: host }, lookup: localhostLookup }, (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`${url}: ${res.statusCode}`)),
        );
      });
      req.on("error", reject);
      req.end();
    });
  for (let i = 0; i < 5; i++) await get();
  return { get, close: () => agent.destroy() };
}

const APP = (text) => `export function App() {
  return (
    <main>
      <h1>${text}</h1>
    </main>
  );
}
`;

/**
 * Saves App.tsx in the container (whole, by rename, as editors do: a truncate
 * then write can show Vite an empty module) and measures until the page's DOM
 * shows it (same clock: one machine).
 */
async function timeHotReloads(browser, container, previewUrl, directUrl) {
  // Both pages open at once: each save reaches both, so the two are timed from the same moment.
  const pages = {};
  const loads = {};
  for (const [name, url] of [
    ["viaPreview", previewUrl],
    ["direct", directUrl],
  ]) {
    const page = await browser.newPage();
    loads[name] = 0;
    page.on("load", () => loads[name]++);
    await page.goto(url);
    await page.waitForSelector("main");
    // Let Vite's first-visit work (dependency optimisation) settle.
    await page.waitForLoadState("networkidle");
    pages[name] = page;
  }
  const loadsBefore = { ...loads };
  const result = { viaPreview: [], direct: [] };
  for (let i = 0; i < EDITS; i++) {
    const text = `bench ${i} ${Date.now()}`;
    const savedAt = Number(
      execFileSync(
        "docker",
        [
          "exec",
          "-i",
          container,
          "sh",
          "-c",
          "cat >/workspace/src/.App.tsx.new && mv /workspace/src/.App.tsx.new /workspace/src/App.tsx; date +%s%3N",
        ],
        { input: APP(text), encoding: "utf8" },
      ).trim(),
    );
    // Polled from here (10 ms steps): a full reload instead of hot reload still counts, just slower.
    const [viaPreview, direct] = await Promise.all([seen(pages.viaPreview, text), seen(pages.direct, text)]);
    result.viaPreview.push(viaPreview - savedAt);
    result.direct.push(direct - savedAt);
    await new Promise((r) => setTimeout(r, 300));
  }
  for (const name of Object.keys(pages)) {
    if (loads[name] !== loadsBefore[name])
      console.log(`  ${name}: the page reloaded ${loads[name] - loadsBefore[name]} time(s) instead of hot reloading`);
    await pages[name].close();
  }
  return result;
}

/**
 * PAGE_LOADS loads of the template app at each of `urls` (by turns: one load
 * through each, then the next), alternating a reload of one tab and a new
 * tab, as a user does; each is timed from navigation to the app's first
 * render. Every 5xx answer and failed request of the page's origin counts as
 * a failed answer; a load that never renders is a failed load, and enters the
 * times with how long it took to fail.
 * @param {Record<string, string>} urls
 */
async function timePageLoads(browser, urls) {
  const targets = {};
  for (const [name, url] of Object.entries(urls)) {
    const context = await browser.newContext();
    const origin = new URL(url).origin;
    const target = { url, context, times: [], failed: 0, failedLoads: 0, answers: 0 };
    context.on("page", (page) => {
      page.on("response", (response) => {
        if (!response.url().startsWith(origin)) return;
        target.answers++;
        if (response.status() >= 500) target.failed++;
      });
      page.on("requestfailed", (request) => {
        if (request.url().startsWith(origin)) target.failed++;
      });
    });
    target.tab = await context.newPage();
    targets[name] = target;
  }
  try {
    for (let i = 0; i < PAGE_LOADS; i++) {
      const newTab = i % 2 === 1;
      for (const target of Object.values(targets)) {
        const page = newTab ? await target.context.newPage() : target.tab;
        const started = performance.now();
        try {
          if (newTab || i === 0) await page.goto(target.url);
          else await page.reload();
          await page.getByText("Hello from your workspace").waitFor({ timeout: 30_000 });
          target.times.push(performance.now() - started);
          // Nothing in flight when the next load starts (a reload would cut it off).
          await page.waitForLoadState("networkidle");
        } catch {
          target.failedLoads++;
          target.failed++;
          target.times.push(performance.now() - started);
        }
        if (newTab) await page.close();
      }
    }
  } finally {
    for (const target of Object.values(targets)) await target.context.close();
  }
  return Object.fromEntries(
    Object.entries(targets).map(([name, t]) => [
      name,
      { times: t.times, failed: t.failed, failedLoads: t.failedLoads, answers: t.answers },
    ]),
  );
}

async function seen(page, text) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const h1 = await page.textContent("h1", { timeout: 1_000 }).catch(() => "");
    if (h1?.includes(text)) return Date.now();
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the page never showed "${text}"`);
}
