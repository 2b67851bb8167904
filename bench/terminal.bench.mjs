// Terminal benchmark: the IDE's terminal (browser socket -> Worker -> Durable
// Object -> container exec -> tmux) against two references on this machine:
// a bare node-pty + ws server (no container, no tmux) and WeTTY. All three are
// driven by the same Node `ws` client, which "draws" instantly and
// acknowledges output at once (our ack frames, WeTTY's commit events).
//
// The references are installed on first use into node_modules/.cache/terminal-bench
// (node-pty is built with node-gyp); when that fails their columns say n/a.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { signIn } from "./lib/session.mjs";

export const title = "Terminal (ms; ratio = cloud-ide / reference)";

const ROOT = new URL("..", import.meta.url).pathname;
const CACHE = join(ROOT, "node_modules/.cache/terminal-bench");
const ECHO_SAMPLES = 200;
const FLOOD_SAMPLES = 8;
const BIG_FILE_MB = 50;

export async function run({ baseUrl }) {
  const refs = await startReferences();
  try {
    const ours = await measure(ideSystem(baseUrl), "ours");
    const bare = refs.bare ? await measure(refs.bare, "bare") : {};
    const wetty = refs.wetty ? await measure(refs.wetty, "wetty") : {};
    const rows = [];
    const row = (metric, key, target, refName) => {
      const refKey = refName ?? "bare";
      const reference = (refKey === "bare" ? bare : wetty)[key];
      rows.push({
        metric,
        ours: ours[key],
        reference,
        referenceName: reference === undefined ? undefined : refKey,
        unit: "ms",
        target,
      });
    };
    for (const [label, refKey] of [
      ["bare", "bare"],
      ["WeTTY", "wetty"],
    ]) {
      if (!refs[refKey])
        rows.push({ metric: `(${label} reference unavailable: ${refs.errors[refKey]})`, ours: undefined });
    }
    row("echo p50", "echoP50", "<= 2x bare", "bare");
    row("echo p50", "echoP50", "<= WeTTY", "wetty");
    row("echo p99", "echoP99", "", "bare");
    row("echo p99", "echoP99", "", "wetty");
    row(`cat ${BIG_FILE_MB} MB to prompt`, "cat", "", "bare");
    row(`cat ${BIG_FILE_MB} MB to prompt`, "cat", "<= WeTTY", "wetty");
    row("connect to first prompt (ours: cold workspace)", "cold", "< 2000 ms", "bare");
    row("connect to first prompt (ours: cold workspace)", "cold", "", "wetty");
    row("reattach (refs: new shell)", "reattach", "< 300 ms", "bare");
    row("Ctrl+C to prompt in flood p95", "ctrlcP95", "< 1000 ms", "bare");
    row("Ctrl+C to prompt in flood p95", "ctrlcP95", "", "wetty");
    return rows;
  } finally {
    refs.stop();
  }
}

// ---------------------------------------------------------------- the systems

/** The IDE, signed in as the owner; one fresh workspace each time. */
function ideSystem(baseUrl) {
  let owner;
  let workspace;
  return {
    name: "cloud-ide",
    file: "/tmp/bench-big.txt",
    async newWorkspace() {
      owner ??= await signIn(baseUrl);
      workspace = (await owner.json("/api/workspaces", { method: "POST", body: { name: "terminal bench" } })).id;
    },
    async open(name = "bench") {
      const url = new URL(`/ws/workspaces/${workspace}/terminals/${name}?cols=120&rows=40`, baseUrl);
      url.protocol = "ws:";
      const ws = new WebSocket(url, { headers: { Origin: baseUrl, Cookie: owner.cookie } });
      ws.binaryType = "nodebuffer";
      const session = makeSession({
        send: (text) => ws.send(Buffer.from(text)),
        close: () => ws.close(),
      });
      let received = 0;
      let acked = 0;
      let lastError;
      await new Promise((resolve, reject) => {
        ws.on("message", (data, isBinary) => {
          if (!isBinary) {
            const message = JSON.parse(data.toString());
            if (message.type === "error") lastError = message.message;
            if (message.type === "ready") {
              ws.send(JSON.stringify({ type: "ack", bytes: 0 }));
              resolve();
            }
            return;
          }
          received += data.length;
          if (received - acked >= 64 * 1024) {
            acked = received;
            ws.send(JSON.stringify({ type: "ack", bytes: received }));
          }
          session.push(data.toString("latin1"));
        });
        ws.on("error", reject);
        ws.on("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
        ws.on("close", (code) => reject(new Error(`closed before ready (${code} ${lastError ?? ""})`)));
      });
      return session;
    },
  };
}

function bareSystem(port) {
  return {
    name: "bare",
    file: undefined,
    async newWorkspace() {},
    async open() {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
      const session = makeSession({ send: (text) => ws.send(Buffer.from(text)), close: () => ws.close() });
      ws.on("message", (data) => session.push(data.toString("latin1")));
      await new Promise((resolve, reject) => {
        ws.on("open", resolve);
        ws.on("error", reject);
      });
      return session;
    },
  };
}

/** WeTTY speaks socket.io (engine.io v4) over the WebSocket; this is the minimum of it. */
function wettySystem(port) {
  return {
    name: "wetty",
    file: undefined,
    async newWorkspace() {},
    async open() {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/socket.io/?EIO=4&transport=websocket`, {
        headers: { Referer: `http://127.0.0.1:${port}/` },
      });
      const emit = (event, arg) => ws.send(`42${JSON.stringify([event, arg])}`);
      const session = makeSession({ send: (text) => emit("input", text), close: () => ws.close() });
      await new Promise((resolve, reject) => {
        ws.on("message", (raw) => {
          const text = raw.toString();
          if (text.startsWith("0")) ws.send("40");
          else if (text === "2") ws.send("3");
          else if (text.startsWith("42")) {
            const [event, arg] = JSON.parse(text.slice(2));
            if (event === "login") {
              emit("resize", { cols: 120, rows: 40 });
              resolve();
            } else if (event === "data") {
              session.push(arg);
              emit("commit", arg.length);
            }
          }
        });
        ws.on("error", reject);
      });
      return session;
    },
  };
}

/** Output as a rolling tail, with waiters for patterns. */
function makeSession({ send, close }) {
  let tail = "";
  let chunks = 0;
  const waiters = new Set();
  return {
    send,
    close,
    chunks: () => chunks,
    push(text) {
      chunks++;
      tail = (tail + text).slice(-4096);
      for (const w of waiters) w();
    },
    /** Resolves when the output (since the call) matches pattern. */
    waitFor(pattern, timeoutMs = 120_000) {
      tail = "";
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(tail)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; tail ${JSON.stringify(tail.slice(-300))}`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    /** Resolves on the next chunk of output. */
    nextChunk(timeoutMs = 10_000) {
      const start = chunks;
      return new Promise((resolve, reject) => {
        const check = () => {
          if (chunks > start) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error("no output"));
        }, timeoutMs);
        waiters.add(check);
      });
    },
  };
}

// ---------------------------------------------------------------- the measurements

let markerCount = 0;
/** A line whose output differs from its echo: the shell computes the number. */
function marker() {
  const n = 1000 + markerCount++;
  return { line: `echo M-$((${n}+1))-K\r`, pattern: new RegExp(`M-${n + 1}-K`) };
}

async function roundTrip(session, timeoutMs) {
  const { line, pattern } = marker();
  const done = session.waitFor(pattern, timeoutMs);
  session.send(line);
  await done;
}

async function measure(system, label) {
  const result = {};
  const step = (text) => console.log(`  ${label}: ${text}`);
  try {
    step("connect to first prompt");
    await system.newWorkspace();
    let t = performance.now();
    const session = await system.open();
    await roundTrip(session, 60_000);
    result.cold = performance.now() - t;

    step(`echo latency x${ECHO_SAMPLES}`);
    const echoes = [];
    for (let i = 0; i < ECHO_SAMPLES + 20; i++) {
      const echoed = session.nextChunk();
      t = performance.now();
      session.send("x");
      await echoed;
      if (i >= 20) echoes.push(performance.now() - t);
      const erased = session.nextChunk();
      session.send("\x7f");
      await erased;
    }
    // Let any late redraw arrive before the next step.
    await new Promise((r) => setTimeout(r, 200));
    result.echoP50 = percentile(echoes, 50);
    result.echoP99 = percentile(echoes, 99);

    step(`cat ${BIG_FILE_MB} MB`);
    const file = system.file ?? join(referenceDir(), "big.txt");
    const make = `head -c ${(BIG_FILE_MB * 1024 * 1024 * 3) / 4} /dev/urandom | base64 -w 100 > ${file}`;
    const made = marker();
    const ready = session.waitFor(made.pattern, 120_000);
    session.send(`${make}; ${made.line}`);
    await ready;
    const catDone = marker();
    const catted = session.waitFor(catDone.pattern, 300_000);
    t = performance.now();
    session.send(`cat ${file}; ${catDone.line}`);
    await catted;
    result.cat = performance.now() - t;

    step(`Ctrl+C during a flood x${FLOOD_SAMPLES}`);
    const stops = [];
    for (let i = 0; i < FLOOD_SAMPLES; i++) {
      const flowing = session.nextChunk();
      session.send("cat /dev/urandom | base64\r");
      await flowing;
      await new Promise((r) => setTimeout(r, 1500));
      const { line, pattern } = marker();
      const back = session.waitFor(pattern, 120_000);
      t = performance.now();
      session.send("\x03");
      session.send(line);
      await back;
      stops.push(performance.now() - t);
    }
    result.ctrlcP95 = percentile(stops, 95);
    session.send(`rm -f ${file}\r`);
    await new Promise((r) => setTimeout(r, 300));

    step("reattach");
    session.close();
    await new Promise((r) => setTimeout(r, 500));
    const attaches = [];
    for (let i = 0; i < 5; i++) {
      t = performance.now();
      const again = await system.open();
      await again.nextChunk();
      attaches.push(performance.now() - t);
      again.close();
      await new Promise((r) => setTimeout(r, 300));
    }
    result.reattach = percentile(attaches, 50);
  } catch (error) {
    console.error(`  ${label} failed: ${error?.message ?? error}`);
  }
  return result;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

// ---------------------------------------------------------------- the references

let scratch;
function referenceDir() {
  scratch ??= mkdtempSync(join(tmpdir(), "terminal-bench-"));
  return scratch;
}

function installReferences() {
  if (existsSync(join(CACHE, "node_modules/wetty/build/main.js")) && existsSync(join(CACHE, "node_modules/node-pty"))) {
    return;
  }
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(
    join(CACHE, "package.json"),
    JSON.stringify({ name: "terminal-bench-references", private: true, allowScripts: { "node-pty": true } }),
  );
  console.log("  installing the references (wetty, node-pty) into node_modules/.cache/terminal-bench");
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "wetty@3.2.0", "node-pty@1.1.0"], {
    cwd: CACHE,
    stdio: "inherit",
  });
}

async function startReferences() {
  const children = [];
  const errors = {};
  const refs = {
    errors,
    stop: () => {
      for (const child of children) child.kill("SIGKILL");
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    },
  };
  try {
    installReferences();
  } catch (error) {
    errors.bare = errors.wetty = `install failed: ${error.message}`;
    return refs;
  }
  try {
    const child = spawn(process.execPath, [join(ROOT, "bench/lib/bare-pty-server.mjs"), join(CACHE, "node_modules")], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    const port = await new Promise((resolve, reject) => {
      child.stdout.once("data", (d) => resolve(Number(String(d).trim())));
      child.once("exit", (code) => reject(new Error(`exited ${code}`)));
    });
    refs.bare = bareSystem(port);
  } catch (error) {
    errors.bare = error.message;
  }
  try {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const child = spawn(
      process.execPath,
      [
        join(CACHE, "node_modules/wetty/build/main.js"),
        "--host",
        "127.0.0.1",
        "--port",
        String(port),
        "--ssh-host",
        "localhost",
        "--command",
        "bash --norc --noprofile",
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PS1: "wetty$ ", HOME: referenceDir() } },
    );
    children.push(child);
    await waitForPort(port, child);
    refs.wetty = wettySystem(port);
  } catch (error) {
    errors.wetty = error.message;
  }
  return refs;
}

async function waitForPort(port, child) {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`WeTTY exited with ${child.exitCode}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/`);
      if (r.status < 500) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("WeTTY did not answer");
}
