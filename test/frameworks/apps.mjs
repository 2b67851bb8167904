// The frameworks' apps, made in workspaces as a person makes them: a workspace
// of its own per row (an empty one, a bigger machine where the row asks),
// the row's files, then its command typed into a terminal, until the port
// listens and the preview answers. The compatibility matrix
// (test/frameworks/matrix.test.ts) and the previews bench
// (bench/previews-frameworks.bench.mjs) both make their apps here, so the
// bench times exactly the apps the matrix checks. Plain JavaScript (types in
// apps.d.mts): the bench runs under Node, without vitest.
import { execFileSync } from "node:child_process";
import { lookup } from "node:dns";
import { request } from "node:http";
import { Screen } from "../support/screen.ts";
import { ROWS } from "./rows.ts";

/**
 * The Docker volume that keeps npm's downloads for the frameworks' apps
 * between runs. Only the content cache is shared: each workspace's `npx`
 * installs (`~/.npm/_npx`) stay its own, since two of them installing the
 * same generator at once into one folder would trip over each other. The
 * matrix and the bench share it on purpose (read and write).
 */
export const NPM_CACHE_VOLUME = "cloud-ide-frameworks-npm-cache";

/** How long the generator, the install and the dev server's start may take (Next.js and Angular are heavy). */
export const START_TIMEOUT_MS = 10 * 60_000;
/** A dev server listens before it can answer (Next.js and Angular compile first). */
const ANSWER_TIMEOUT_MS = 5 * 60_000;

/**
 * Creates the npm cache volume (once; `docker volume create` keeps an
 * existing one as it is) and returns the bind that puts it in every
 * workspace container of an IDE (startDevServer's `appBinds`).
 */
export function npmCacheBind() {
  execFileSync("docker", ["volume", "create", NPM_CACHE_VOLUME], { stdio: "ignore", timeout: 60_000 });
  return `${NPM_CACHE_VOLUME}:/root/.npm/_cacache`;
}

/**
 * The rows whose names contain one of the comma-separated parts of `filter`
 * (`FRAMEWORKS_ROWS=vanilla,python`); every row when there is no filter.
 */
export function selectRows(filter) {
  const only = filter?.split(",").filter(Boolean);
  return only && only.length > 0 ? ROWS.filter((row) => only.some((part) => row.name.includes(part))) : ROWS;
}

/**
 * A workspace for `row`: empty, on the row's machine, started. A start is
 * tried again when the container did not come up: on two shared cores busy
 * with other rows' installs, the network sidecar can miss workerd's start
 * deadline. `onCreated` gets the id as soon as it exists, so a failed start
 * still leaves the caller the workspace to delete.
 */
export async function startWorkspace(client, row, name, onCreated = () => {}) {
  const created = await client.api("/api/workspaces", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name, template: "empty" }),
  });
  if (created.status !== 201) throw new Error(`creating a workspace failed: ${created.status} ${await created.text()}`);
  const { id } = await created.json();
  onCreated(id);
  if (row.machine) {
    const set = await client.api(`/api/workspaces/${id}/settings`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ machine: row.machine }),
    });
    if (set.status !== 200) throw new Error(`choosing ${row.machine}: ${set.status} ${await set.text()}`);
  }
  let answer = "";
  for (let attempt = 1; attempt <= 3; attempt++) {
    const woken = await client.api(`/api/workspaces/${id}/wake`, { method: "POST" });
    if (woken.status === 200) return id;
    answer = `${woken.status} ${await woken.text()}`;
  }
  throw new Error(`workspace ${id} did not start: ${answer}`);
}

/**
 * Makes `row`'s app in workspace `id` and runs it: writes the row's files,
 * types the row's command into a terminal as a person types it (the marker
 * after it shows only if the command ends), waits until the port listens
 * (the preview pane's own poll) and the owner's preview answers. Fails with
 * what the terminal shows when the command ends first or time runs out.
 */
export async function makeApp(client, id, row) {
  for (const [path, content] of Object.entries(row.files ?? {})) {
    const query = new URLSearchParams({ path, parents: "1" });
    const put = await client.api(`/api/workspaces/${id}/files/content?${query}`, { method: "PUT", body: content });
    if (put.status >= 300) throw new Error(`writing ${path}: ${put.status} ${await put.text()}`);
  }
  const terminal = await openTerminal(client, id, "matrix", { cols: 160, rows: 40 });
  try {
    const typedAt = Date.now();
    terminal.type(`cd /workspace && ${row.command}; echo MATRIX-EXIT-$?\r`);
    await untilListening(client, id, row.port, terminal);
    const startSeconds = seconds(typedAt);
    const listeningAt = Date.now();
    const grant = await ownerPreview(client, id, row.port);
    await untilAnswering(grant.url, terminal);
    return { terminal, grant, startSeconds, listeningAt };
  } catch (error) {
    terminal.close();
    throw error;
  }
}

/** The owner's preview URL for a port (what the pane shows): grant `renew` renewed, or a new one. */
export async function ownerPreview(client, id, port, renew) {
  const query = renew ? `?grant=${renew}` : "";
  const response = await client.api(`/api/workspaces/${id}/previews/${port}${query}`, { method: "POST" });
  if (response.status !== 200) throw new Error(`opening the preview: ${response.status} ${await response.text()}`);
  return response.json();
}

/**
 * A terminal as the owner, once it is ready: what it shows is rendered by
 * xterm.js's own parser (../support/screen.ts), since tmux draws lines with
 * cursor addressing as readily as with `\r\n`.
 */
async function openTerminal(client, id, name, { cols, rows }) {
  const ws = await client.webSocket(`/ws/workspaces/${id}/terminals/${name}?cols=${cols}&rows=${rows}`);
  const screen = new Screen(cols, rows);
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`terminal ${name} was not ready in 120 s`)), 120_000);
    ws.on("message", (data, isBinary) => {
      if (isBinary) screen.write(data);
      else if (JSON.parse(data.toString()).type === "ready") {
        clearTimeout(timer);
        resolve(undefined);
      }
    });
    ws.on("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode} instead of an upgrade`)));
    ws.on("error", reject);
    ws.on("close", (code) => reject(new Error(`terminal closed before ready: ${code}`)));
  });
  ws.on("close", () => screen.dispose());
  return {
    ws,
    type: (text) => ws.send(Buffer.from(text)),
    screen: () => screen.text(),
    close: () => ws.close(),
  };
}

async function untilListening(client, id, port, terminal) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (/MATRIX-EXIT-\d+/.test(await terminal.screen())) {
      throw new Error(`the command ended before port ${port} listened:\n${await terminal.screen()}`);
    }
    const overview = await client.api(`/api/workspaces/${id}/previews`);
    if (overview.status === 200 && (await overview.json()).ports.some((p) => p.port === port)) return;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  throw new Error(`port ${port} did not listen in time:\n${await terminal.screen()}`);
}

async function untilAnswering(url, terminal) {
  const deadline = Date.now() + ANSWER_TIMEOUT_MS;
  let last = 0;
  while (Date.now() < deadline) {
    last = await previewStatus(url);
    if (last > 0 && last < 500) return;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  throw new Error(`the preview answered ${last}:\n${await terminal.screen()}`);
}

/** Node's resolver (unlike Chromium's) does not map *.localhost to loopback. */
const localhostLookup = (hostname, options, callback) =>
  lookup(hostname.endsWith(".localhost") ? "localhost" : hostname, options, callback);

/** The status of a GET of a preview URL; 0 when it did not answer (in 60 s). */
function previewStatus(url) {
  return new Promise((resolve) => {
    const req = request(url, { lookup: localhostLookup, timeout: 60_000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", () => resolve(0));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(0));
    req.end();
  });
}

function seconds(since) {
  return Math.round((Date.now() - since) / 100) / 10;
}
