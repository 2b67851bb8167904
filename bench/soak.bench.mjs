// Soak (issue 45): SOAK_WORKSPACES workspaces (default 8) used at once for
// SOAK_MINUTES minutes (default 20), each by two loops with small random
// pauses, as a person at the keyboard and the heavier work beside them:
//   typing: keystrokes in a terminal (each timed until it echoes) and saves
//           (PUT /files/content, timed);
//   work:   terminal floods (`seq 1 200000` to its end marker), preview page
//           loads of the template's dev server, an agent's read_file and
//           run_command over MCP, and a backup now and then (one or two a
//           workspace over the run).
// In the first workspace, three people (the owner and two invited guests, on
// the y-protocols socket the page uses) co-edit one file all along.
// Reported: every error (each printed to stderr as it happens); the p95 of a
// save and of a keystroke in the last minute against the first; workerd's
// resident memory before, during (max) and after; and what is left once every
// workspace is deleted: containers, network sidecars, the bench's own
// WebSockets, and R2 multipart uploads still in progress.
import { execFileSync } from "node:child_process";
import { lookup } from "node:dns";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import WebSocket from "ws";
import { connectCollab } from "../scripts/lib/collab-client.mjs";
import { percentileName } from "./lib/alternate.mjs";
import { joinAsGuest, signIn } from "./lib/session.mjs";
import { percentile } from "./lib/stats.mjs";
import { usage, workerdPids } from "./lib/workerd-usage.mjs";

/** Twenty minutes by default: run by `npm run bench -- soak`, not by a plain `npm run bench`. */
export const onlyWhenNamed = true;

export const title = "Soak: many workspaces in mixed use (issue 45)";

const WORKSPACES = Math.round(positive("SOAK_WORKSPACES", 8));
const MINUTES = positive("SOAK_MINUTES", 20);
const RUN_MS = MINUTES * 60_000;
/** Set by `npm test` (scripts/test.mjs): errors or anything left fail the run, not only the table. */
const CHECK = process.env.SOAK_CHECK === "1";
/** The first and the last minute of the run are compared. */
const WINDOW_MS = 60_000;
/** Workspaces set up at a time: each starts a container and a dev server, on a 2-core machine. */
const SETUP_AT_ONCE = 2;
/** Any one action that takes longer is an error (and the loop goes on), not a hung run. */
const ACTION_TIMEOUT_MS = 180_000;
const FLOOD_LINES = 200_000;
const KEYS_PER_BURST = 5;
const SAVE_FILE = "soak-notes.txt";
const AGENT_FILE = "soak-agent.txt";
const AGENT_TEXT = "read by the soak's agent\n".repeat(40);
const SHARED_FILE = "soak-shared.txt";
const DEV_PORT = 5173;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const pause = (minMs, maxMs) => sleep(minMs + Math.random() * (maxMs - minMs));

/** A positive number from the environment, or `fallback`. */
function positive(name, fallback) {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) throw new Error(`${name} must be a positive number, not ${JSON.stringify(process.env[name])}`);
  return value;
}

export async function run({ baseUrl, workerName, serverPid }) {
  const owner = await signIn(baseUrl);
  const soak = newSoak(baseUrl, owner);
  const memory = memorySampler(serverPid);
  /** Every workspace this run made, ready or not: closed and deleted at the end whatever happens. */
  const made = [];
  const workspaces = [];
  try {
    workspaces.push(...(await setUpAll(soak, made)));
    console.log(`  ${workspaces.length} workspaces ready; ${MINUTES} min of mixed use`);
    memory.start();
    soak.started = performance.now();
    await Promise.all([
      ...workspaces.flatMap((w) => [typingLoop(soak, w), workLoop(soak, w)]),
      coEditing(soak, workspaces[0]),
    ]);
    memory.stop();
    console.log(`  done: ${describeCounts(soak.counts)}`);
  } finally {
    memory.stop();
    await closeAll(soak, made);
    await deleteAll(soak, made);
  }
  const left = await leftovers(soak, workerName, serverPid);
  // A moment for the deleted workspaces' objects to be let go before the last reading.
  await sleep(10_000);
  memory.after();
  const rows = [errorRow(soak), ...latencyRows(soak), ...memory.rows(), ...left];
  if (CHECK) checkRows(rows);
  return rows;
}

/**
 * SOAK_CHECK=1 (`npm test`'s short soak): the run fails unless every row
 * whose target is 0 (errors, what is left) is 0 and was read at all.
 */
function checkRows(rows) {
  const missed = rows.filter((row) => (row.target === "0" && row.ours !== 0) || /not read/.test(row.metric));
  if (missed.length === 0) return;
  const lines = missed.map((row) => `  ${row.metric}: ${row.ours ?? "-"}`).join("\n");
  throw new Error(`the soak's checks failed:\n${lines}`);
}

/** The run's shared state: errors, timed samples, operation counts and every WebSocket opened. */
function newSoak(baseUrl, owner) {
  let errors = 0;
  return {
    baseUrl,
    owner,
    started: 0,
    /** Set at the end: a socket that closes from then on was closed by the run itself. */
    closing: false,
    samples: { save: [], keystroke: [] },
    counts: {},
    sockets: new Set(),
    errors: () => errors,
    /** Counts an error and says it at once: a long run's first failure is the one to read. */
    fail(where, error) {
      errors++;
      console.error(`  soak error ${errors} (${where}): ${error?.message ?? error}`);
    },
    over() {
      return performance.now() - this.started >= RUN_MS;
    },
  };
}

// ---------------------------------------------------------------- set-up

/** Sets up WORKSPACES workspaces, SETUP_AT_ONCE at a time; one that fails is counted and left out. */
async function setUpAll(soak, made) {
  const ready = [];
  let next = 0;
  const worker = async () => {
    while (next < WORKSPACES) {
      const index = next++;
      try {
        ready.push(await setUpWorkspace(soak, index, made));
      } catch (error) {
        soak.fail(`workspace ${index + 1}, set-up`, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(SETUP_AT_ONCE, WORKSPACES) }, worker));
  if (ready.length === 0) throw new Error("no workspace could be set up: see the errors above");
  // The co-edited one is the first made.
  return ready.sort((a, b) => a.index - b.index);
}

/** A template workspace, awake, with its dev server listening, an agent connected and two terminals open. */
async function setUpWorkspace(soak, index, made) {
  const { owner } = soak;
  const name = `soak ${index + 1}`;
  const { id } = await owner.json("/api/workspaces", { method: "POST", body: { name } });
  const w = { index, name, id, saves: 0, floods: 0, commands: 0 };
  made.push(w);
  await owner.json(`/api/workspaces/${id}/wake`, { method: "POST" });
  await putFile(owner, id, AGENT_FILE, AGENT_TEXT);
  w.preview = await startPreview(owner, id);
  w.agent = await connectAgent(owner, id);
  w.terminals = {};
  for (const terminal of ["soak-keys", "soak-flood"]) w.terminals[terminal] = await openTerminal(soak, w, terminal);
  w.backupsDue = backupTimes();
  console.log(`  ${name} ready (${id})`);
  return w;
}

async function putFile(session, id, path, body) {
  const response = await session.fetch(`/api/workspaces/${id}/files/content?path=${encodeURIComponent(path)}`, {
    method: "PUT",
    body: new TextEncoder().encode(body),
  });
  if (!response.ok) throw new Error(`PUT ${path}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

/** Starts the template's dev server as the Run button does (as previews.bench.mjs), and opens the owner's preview. */
async function startPreview(owner, id) {
  const start = await owner.fetch(`/api/workspaces/${id}/previews/dev-server`, { method: "POST" });
  if (!start.ok) throw new Error(`starting the dev server: ${start.status} ${await start.text()}`);
  const deadline = Date.now() + ACTION_TIMEOUT_MS;
  for (;;) {
    const overview = await owner.json(`/api/workspaces/${id}/previews`);
    if (overview.devServer.state === "exited") throw new Error(`the dev server exited: ${overview.devServer.output}`);
    if (overview.ports.some((p) => p.port === DEV_PORT)) break;
    if (Date.now() > deadline) throw new Error(`the dev server did not listen on ${DEV_PORT} in 180 s`);
    await sleep(1000);
  }
  return owner.json(`/api/workspaces/${id}/previews/${DEV_PORT}`, { method: "POST" });
}

/** The official MCP client with a write token, as mcp.bench.mjs connects it. */
async function connectAgent(owner, id) {
  const token = await owner.json(`/api/workspaces/${id}/agent-tokens`, {
    method: "POST",
    // The whole run and its set-up; 300 s is the least the API takes.
    body: { name: "soak", scope: "write", ttlSeconds: Math.max(300, Math.ceil(RUN_MS / 1000) + 1800) },
  });
  const client = new Client({ name: "soak", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(token.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token.token}` } },
    }),
  );
  return client;
}

/** One backup at a random moment of the run's middle, and a second near its end when the run is 10 min or more. */
function backupTimes() {
  const at = (from, to) => (from + Math.random() * (to - from)) * RUN_MS;
  return MINUTES >= 10 ? [at(0.25, 0.45), at(0.65, 0.85)] : [at(0.3, 0.6)];
}

// ---------------------------------------------------------------- terminals

function wsUrl(baseUrl, path) {
  const url = new URL(path, baseUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url;
}

/**
 * A terminal over the IDE's socket, drawn at once and acknowledged as the page
 * does (flow control on). until() waits for output from the call on.
 */
async function openTerminal(soak, w, name) {
  const ws = new WebSocket(wsUrl(soak.baseUrl, `/ws/workspaces/${w.id}/terminals/${name}?cols=120&rows=40`), {
    headers: { Origin: soak.baseUrl, Cookie: soak.owner.cookie },
  });
  soak.sockets.add(ws);
  const waiters = new Set();
  let received = 0;
  let acked = 0;
  let ready = false;
  let closing = false;
  /** The server's `error` message, said with the close that follows it. */
  let lastError = "";
  const onBinary = (data) => {
    received += data.length;
    if (received - acked >= 64 * 1024) {
      acked = received;
      ws.send(JSON.stringify({ type: "ack", bytes: received }));
    }
    const text = data.toString("latin1");
    for (const waiter of [...waiters]) waiter(text);
  };
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`terminal ${name} not ready in 60 s`)), 60_000);
    ws.on("message", (data, isBinary) => {
      if (isBinary) return onBinary(data);
      const message = parseJson(data.toString());
      if (message?.type === "error") lastError = `: ${message.message}`;
      if (message?.type !== "ready") return;
      clearTimeout(timer);
      ready = true;
      ws.send(JSON.stringify({ type: "ack", bytes: 0 }));
      resolve();
    });
    ws.once("unexpected-response", (_req, res) => reject(new Error(`terminal ${name}: HTTP ${res.statusCode}`)));
    ws.on("error", (error) => reject(new Error(`terminal ${name}: ${error.message}`)));
    ws.once("close", (code, reason) => {
      clearTimeout(timer);
      reject(new Error(`terminal ${name} closed before it was ready (${code} ${reason}${lastError})`));
      for (const waiter of [...waiters]) waiter(null);
      // Before it was ready the set-up's own error says it.
      if (ready && !closing && !soak.closing)
        soak.fail(`${w.name}, terminal ${name}`, new Error(`closed by the server (${code} ${reason}${lastError})`));
    });
  });
  return {
    isOpen: () => ws.readyState === WebSocket.OPEN,
    send: (text) => ws.send(Buffer.from(text)),
    close: () => {
      closing = true;
      ws.close();
    },
    /** Resolves once the output since the call (its last 4 KB) passes `test`. */
    until: (test, what, timeoutMs) =>
      new Promise((resolve, reject) => {
        let seen = "";
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(`${what}: not seen in ${timeoutMs / 1000} s; last output ${JSON.stringify(seen.slice(-200))}`),
          );
        }, timeoutMs);
        const waiter = (chunk) => {
          if (chunk === null) {
            waiters.delete(waiter);
            clearTimeout(timer);
            return reject(new Error(`${what}: the terminal closed`));
          }
          seen = (seen + chunk).slice(-4096);
          if (!test(seen)) return;
          waiters.delete(waiter);
          clearTimeout(timer);
          resolve();
        };
        waiters.add(waiter);
      }),
  };
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The workspace's terminal `name`, opened again if its socket went away (that was counted as an error). */
async function terminal(soak, w, name) {
  if (!w.terminals[name].isOpen()) w.terminals[name] = await openTerminal(soak, w, name);
  return w.terminals[name];
}

// ---------------------------------------------------------------- the actions

/** Runs one action under a deadline; a failure is counted and said, and the loop goes on. */
async function act(soak, w, what, action) {
  let timer;
  const work = action();
  work.catch(() => {}); // a late failure, after the deadline, was already counted
  try {
    await Promise.race([
      work,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no end after ${ACTION_TIMEOUT_MS / 1000} s`)), ACTION_TIMEOUT_MS);
      }),
    ]);
    soak.counts[what] = (soak.counts[what] ?? 0) + 1;
  } catch (error) {
    soak.fail(`${w.name}, ${what}`, error);
  } finally {
    clearTimeout(timer);
  }
}

/** A sample at its start's moment in the run, for the first- and last-minute figures. */
function sample(soak, kind, startedAt) {
  soak.samples[kind].push({ at: startedAt - soak.started, ms: performance.now() - startedAt });
}

/** A burst of keystrokes, each timed until its letter echoes, then the line cleared (Ctrl+U). */
async function keystrokes(soak, w) {
  const term = await terminal(soak, w, "soak-keys");
  for (let i = 0; i < KEYS_PER_BURST; i++) {
    const echoed = term.until((seen) => seen.includes("z"), "a keystroke's echo", 10_000);
    const startedAt = performance.now();
    term.send("z");
    await echoed;
    sample(soak, "keystroke", startedAt);
    await pause(40, 160);
  }
  const cleared = term.until(() => true, "the line cleared (Ctrl+U)", 10_000);
  term.send("\x15");
  await cleared;
}

/** A save of a few KB, different each time, as the editor's PUT. */
async function save(soak, w) {
  w.saves++;
  const body = `save ${w.saves} at ${new Date().toISOString()}\n${"lorem ipsum dolor sit amet ".repeat(150)}\n`;
  const startedAt = performance.now();
  await putFile(soak.owner, w.id, SAVE_FILE, body);
  sample(soak, "save", startedAt);
}

/** `seq` floods the terminal to its end marker (computed by the shell: the echoed command does not match). */
async function flood(soak, w) {
  const term = await terminal(soak, w, "soak-flood");
  const n = ++w.floods;
  const done = term.until((seen) => seen.includes(`SOAK-${n + 1000}-END`), `the end of flood ${n}`, 150_000);
  term.send(`seq 1 ${FLOOD_LINES}; echo SOAK-$((${n}+1000))-END\r`);
  await done;
}

const localhostLookup = (hostname, options, callback) =>
  lookup(hostname.endsWith(".localhost") ? "localhost" : hostname, options, callback);

/** GET `url` on a new connection: its status and body. */
function get(url) {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, lookup: localhostLookup, timeout: 60_000 }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${url}: no answer in 60 s`)));
    req.on("error", reject);
    req.end();
  });
}

/** A page load through the preview: the document and its entry module, on new connections as a fresh tab. */
async function previewLoad(soak, w) {
  // The owner's grant lasts 5 minutes: renewed as the preview pane renews it.
  if (Date.parse(w.preview.expiresAt) - Date.now() < 90_000) {
    const grant = w.preview.id ? `?grant=${encodeURIComponent(w.preview.id)}` : "";
    w.preview = await soak.owner.json(`/api/workspaces/${w.id}/previews/${DEV_PORT}${grant}`, { method: "POST" });
  }
  const page = await get(w.preview.url);
  if (page.status !== 200 || !page.body.includes('id="root"'))
    throw new Error(`the preview's page: ${page.status} ${page.body.slice(0, 200)}`);
  const entry = await get(new URL("/src/main.tsx", w.preview.url).toString());
  if (entry.status !== 200) throw new Error(`the preview's /src/main.tsx: ${entry.status} ${entry.body.slice(0, 200)}`);
}

async function agentRead(_soak, w) {
  const result = await w.agent.callTool({ name: "read_file", arguments: { path: AGENT_FILE } });
  const text = result.content?.[0]?.text;
  if (result.isError || text !== AGENT_TEXT)
    throw new Error(`read_file answered ${JSON.stringify(result).slice(0, 300)}`);
}

async function agentCommand(_soak, w) {
  const n = ++w.commands + 1000;
  // The shell computes the number: the answer holds it only if the command ran.
  const result = await w.agent.callTool({ name: "run_command", arguments: { command: `echo soak-$((${n}+1))` } });
  const text = (result.content ?? []).map((part) => part.text ?? "").join("\n");
  if (result.isError || !text.includes(`soak-${n + 1}`) || !text.includes("Exit code 0."))
    throw new Error(`run_command answered ${JSON.stringify(result).slice(0, 300)}`);
}

/** A backup now, as backups.bench.mjs triggers one: answered once the object is stored. */
async function backup(soak, w) {
  await soak.owner.json(`/api/workspaces/${w.id}/backups`, { method: "POST" });
}

// ---------------------------------------------------------------- the loops

/** The person at the keyboard: keystroke bursts and saves, with short pauses. */
async function typingLoop(soak, w) {
  while (!soak.over()) {
    await pause(200, 1500);
    if (Math.random() < 0.5) await act(soak, w, `${KEYS_PER_BURST} keystrokes`, () => keystrokes(soak, w));
    else await act(soak, w, "save", () => save(soak, w));
  }
}

const WORK = [
  { what: "flood", action: flood },
  { what: "preview load", action: previewLoad },
  { what: "MCP read_file", action: agentRead },
  { what: "MCP run_command", action: agentCommand },
];

/** The heavier work beside the typing: a flood, a page load or an agent's call at a time; a backup when due. */
async function workLoop(soak, w) {
  while (!soak.over()) {
    await pause(500, 3000);
    if (w.backupsDue.length > 0 && performance.now() - soak.started >= w.backupsDue[0]) {
      w.backupsDue.shift();
      await act(soak, w, "backup", () => backup(soak, w));
      continue;
    }
    const { what, action } = WORK[Math.floor(Math.random() * WORK.length)];
    await act(soak, w, what, () => action(soak, w));
  }
}

// ---------------------------------------------------------------- co-editing

/** The owner and two invited editors on one file's socket, each typing marks all run long. */
async function coEditing(soak, w) {
  const where = `${w.name}, co-editing`;
  let people = [];
  try {
    people = await joinCoEditors(soak, w);
    await Promise.all(people.map((person, i) => typeMarks(soak, w, person, i === 0)));
    await checkConverged(people);
    const marks = people.reduce((sum, p) => sum + p.marks.length, 0);
    console.log(`  co-editing: ${marks} marks typed by 3 people, every one in all three texts`);
  } catch (error) {
    soak.fail(where, error);
  } finally {
    for (const person of people) {
      person.closing = true;
      person.client.close();
    }
  }
}

async function joinCoEditors(soak, w) {
  const { owner, baseUrl } = soak;
  await putFile(owner, w.id, SHARED_FILE, "shared\n");
  const invite = await owner.json(`/api/workspaces/${w.id}/invites`, {
    method: "POST",
    body: { role: "editor", ttlSeconds: 3600 },
  });
  const token = new URL(invite.url).hash.slice(1);
  const cookies = [
    ["o", owner.cookie],
    ["a", await joinAsGuest(baseUrl, w.id, token, "Soak guest A")],
    ["b", await joinAsGuest(baseUrl, w.id, token, "Soak guest B")],
  ];
  const url = wsUrl(baseUrl, `/ws/workspaces/${w.id}/collab/file?path=${SHARED_FILE}`);
  const people = [];
  for (const [tag, cookie] of cookies) {
    const person = {
      tag,
      marks: [],
      closing: false,
      client: await connectCollab(url, { Origin: baseUrl, Cookie: cookie }),
    };
    soak.sockets.add(person.client.ws);
    // The client listens for errors only while it connects; one later, unheard, would end the process.
    person.client.ws.on("error", (error) => soak.fail(`${w.name}, co-editor ${tag}`, error));
    person.client.closed.then(({ code, reason }) => {
      if (!person.closing && !soak.closing)
        soak.fail(`${w.name}, co-editor ${tag}`, new Error(`socket closed (${code} ${reason})`));
    });
    people.push(person);
  }
  return people;
}

/**
 * Types a mark a few times a second at the start or the end of the text (never
 * inside another's mark, so every mark can be found whole afterwards); the
 * owner also saves on the socket now and then, as the page's Ctrl+S does.
 */
async function typeMarks(soak, w, person, saves) {
  let lastSave = performance.now();
  while (!soak.over() && !person.closing) {
    const mark = `<${person.tag}${person.marks.length}>`;
    const text = person.client.text;
    text.insert(Math.random() < 0.5 ? 0 : text.length, mark);
    person.marks.push(mark);
    await pause(150, 700);
    if (saves && performance.now() - lastSave > 15_000) {
      lastSave = performance.now();
      await act(soak, w, "co-edited save", async () => {
        const answer = await person.client.save();
        if (answer?.error) throw new Error(`the save on the socket failed: ${JSON.stringify(answer.error)}`);
      });
    }
  }
}

/** All three hold the same text, with every mark anyone typed in it once. */
async function checkConverged(people) {
  const same = () => people.every((p) => p.client.text.toString() === people[0].client.text.toString());
  // Polled: the last edits may reach any of the three last.
  const deadline = Date.now() + 60_000;
  while (!same()) {
    if (Date.now() > deadline) throw new Error("the three co-editors' texts still differ 60 s after the typing");
    await sleep(250);
  }
  const text = people[0].client.text.toString();
  const lost = people.flatMap((p) => p.marks).filter((mark) => text.split(mark).length !== 2);
  if (lost.length > 0)
    throw new Error(`${lost.length} marks are missing or doubled, such as ${lost.slice(0, 5).join(" ")}`);
}

// ---------------------------------------------------------------- the end

/** Closes every socket and MCP client the run opened, and waits (a little) for the sockets to be closed. */
async function closeAll(soak, workspaces) {
  soak.closing = true;
  for (const w of workspaces) {
    for (const term of Object.values(w.terminals ?? {})) term.close();
    await w.agent?.close().catch((error) => soak.fail(`${w.name}, closing the MCP client`, error));
  }
  for (const ws of soak.sockets) if (ws.readyState !== WebSocket.CLOSED) ws.close();
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && [...soak.sockets].some((ws) => ws.readyState !== WebSocket.CLOSED)) await sleep(200);
}

async function deleteAll(soak, made) {
  for (const { id } of made) {
    const response = await soak.owner.fetch(`/api/workspaces/${id}`, { method: "DELETE" }).catch((error) => error);
    if (response instanceof Error || response.status !== 204) {
      const why = response instanceof Error ? response.message : `${response.status} ${await response.text()}`;
      soak.fail(`deleting workspace ${id}`, new Error(why));
    }
  }
}

/** This IDE's containers (`workerd-{workerName}-…`), running or not: the app containers and their sidecars. */
function containersOf(workerName) {
  const args = ["ps", "-a", "--format", "{{.Names}}", "--filter", `name=workerd-${workerName}-`];
  const names = execFileSync("docker", args, { encoding: "utf8" }).split("\n").filter(Boolean);
  return { apps: names.filter((n) => !n.endsWith("-proxy")), sidecars: names.filter((n) => n.endsWith("-proxy")) };
}

/** What is left once every workspace is deleted; a deletion may remove its container a little later (up to 20 s). */
async function leftovers(soak, workerName, serverPid) {
  let left = containersOf(workerName);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && left.apps.length + left.sidecars.length > 0) {
    await sleep(2000);
    left = containersOf(workerName);
  }
  if (left.apps.length + left.sidecars.length > 0)
    console.error(`  left after 60 s: ${[...left.apps, ...left.sidecars].join(", ")}`);
  const open = [...soak.sockets].filter((ws) => ws.readyState !== WebSocket.CLOSED).length;
  const rows = [
    { metric: "containers left after deleting every workspace", ours: left.apps.length, unit: "", target: "0" },
    { metric: "network sidecars left", ours: left.sidecars.length, unit: "", target: "0" },
    {
      metric: `the bench's WebSockets still open (of ${soak.sockets.size} opened, all closed)`,
      ours: open,
      unit: "",
      target: "0",
    },
  ];
  try {
    const uploads = await multipartUploads(serverPid);
    rows.push({
      // How many were begun shows that the reading sees them at all.
      metric: `R2 multipart uploads in progress (of ${uploads.begun} begun in this IDE's local R2)`,
      ours: uploads.inProgress,
      unit: "",
      target: "0",
    });
  } catch (error) {
    rows.push({ metric: `R2 multipart uploads in progress: not read (${error.message})`, ours: undefined, unit: "" });
  }
  return rows;
}

/**
 * Multipart uploads begun, and those neither completed nor aborted, in this IDE's
 * local R2. miniflare keeps each bucket in a SQLite database under the run's
 * state folder (as test/support/r2-objects.ts reads it), its uploads in
 * `_mf_multipart_uploads` (state 0: in progress). The folder is the dev
 * server's CLOUD_IDE_STATE_DIR, read from its environment, and holds only
 * this IDE's buckets.
 */
async function multipartUploads(serverPid) {
  if (!serverPid) throw new Error("no server process given");
  const variable = readFileSync(`/proc/${serverPid}/environ`, "utf8")
    .split("\0")
    .find((entry) => entry.startsWith("CLOUD_IDE_STATE_DIR="));
  if (!variable) throw new Error("the dev server has no CLOUD_IDE_STATE_DIR");
  const folder = join(variable.slice(variable.indexOf("=") + 1), "v3/r2/miniflare-R2BucketObject");
  if (!existsSync(folder)) throw new Error(`no local R2 state at ${folder}: has miniflare's layout changed?`);
  // Imported here: node:sqlite warns that it is experimental, which other sections need not print.
  const { DatabaseSync } = await import("node:sqlite");
  let inProgress = 0;
  let begun = 0;
  let buckets = 0;
  for (const name of readdirSync(folder)) {
    if (!name.endsWith(".sqlite") || name === "metadata.sqlite") continue;
    const db = new DatabaseSync(join(folder, name), { readOnly: true });
    try {
      const count = db.prepare(
        "SELECT count(*) AS n, count(*) FILTER (WHERE state = 0) AS open FROM _mf_multipart_uploads",
      );
      const { n, open } = count.get();
      begun += Number(n);
      inProgress += Number(open);
      buckets++;
    } finally {
      db.close();
    }
  }
  // No bucket at all would read as "none left": a broken reading, not an empty R2.
  if (buckets === 0) throw new Error(`no R2 bucket database in ${folder}: has miniflare's layout changed?`);
  return { inProgress, begun };
}

// ---------------------------------------------------------------- workerd's memory

/** The resident memory (MiB) of the IDE's workerd processes, found again at every sample (one may restart). */
function workerdRss(serverPid) {
  const pids = workerdPids(serverPid);
  return pids.length > 0 ? usage(pids).rss : undefined;
}

/** workerd's memory before the run (now), its most during the run (every 5 s) and after. */
function memorySampler(serverPid) {
  const read = () => (serverPid ? workerdRss(serverPid) : undefined);
  const before = read();
  let max;
  let after;
  let timer;
  const take = () => {
    const rss = read();
    if (rss !== undefined) max = Math.max(max ?? 0, rss);
  };
  return {
    start() {
      take();
      timer = setInterval(take, 5000);
    },
    stop() {
      clearInterval(timer);
    },
    after() {
      after = read();
    },
    rows: () => [
      { metric: "workerd resident memory before the run", ours: before, unit: "MiB" },
      {
        metric: "workerd resident memory during the run (max, every 5 s)",
        ours: max,
        reference: before,
        referenceName: "before",
        unit: "MiB",
      },
      {
        metric: "workerd resident memory after (every workspace deleted)",
        ours: after,
        reference: before,
        referenceName: "before",
        unit: "MiB",
      },
    ],
  };
}

// ---------------------------------------------------------------- rows

function errorRow(soak) {
  const operations = Object.values(soak.counts).reduce((sum, n) => sum + n, 0);
  return {
    metric: `errors (beside ${operations} operations that succeeded; ${WORKSPACES} workspaces, ${MINUTES} min)`,
    ours: soak.errors(),
    unit: "",
    target: "0",
  };
}

/** The p95 of saves and keystrokes in the last minute, against the first minute's. */
function latencyRows(soak) {
  return [
    ["save (PUT /files/content, ~4 KB)", soak.samples.save],
    ["keystroke -> echo", soak.samples.keystroke],
  ].map(([what, samples]) => {
    const first = samples.filter((s) => s.at < WINDOW_MS).map((s) => s.ms);
    const last = samples.filter((s) => s.at >= RUN_MS - WINDOW_MS).map((s) => s.ms);
    return {
      metric: `${what}, last minute, ${percentileName(95, last.length)}`,
      ours: last.length ? percentile(last, 95) : undefined,
      reference: first.length ? percentile(first, 95) : undefined,
      referenceName: `first minute, ${percentileName(95, first.length)}`,
      unit: "ms",
    };
  });
}

function describeCounts(counts) {
  return Object.entries(counts)
    .map(([what, n]) => `${what} ${n}`)
    .join(", ");
}
