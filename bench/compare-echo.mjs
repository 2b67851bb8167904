// The terminal's keystroke echo of several builds of the IDE in ONE run, each
// against tmux attached directly in its own workspace's container, all by
// turns (one keystroke on each system a round, the first rotating), so that
// two commits can be compared on this shared machine:
//
//   node bench/compare-echo.mjs [--rounds 800] [--direct] before=/path/to/worktree after=/path/to/worktree
//
// Each worktree is started with its own scripts/lib/dev-server.mjs (it needs
// its node_modules and .dev.vars). The PTY references come from the terminal
// section's cache (run `npm run bench -- terminal` once, or point
// TERMINAL_BENCH_CACHE at a node_modules holding node-pty).
//
// Where the time goes: the local engine proxy (scripts/lib/engine-proxy.mjs)
// runs in this process and relays the exec streams, so each IDE keystroke is
// split into client -> engine proxy (vite's relay, workerd, the Worker, the
// Durable Object), proxy -> Docker -> proxy (the container's PTY and tmux),
// and proxy -> client. `--direct` adds a socket to each build's workerd
// itself (miniflare's entry, with its own routing headers), skipping the
// relay that `vite dev` runs in Node for every WebSocket message.
import { execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import WebSocket from "ws";
import { percentile } from "./lib/stats.mjs";

const ROOT = new URL("..", import.meta.url).pathname;
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const ROUNDS = option("--rounds", 800);
const WARMUP = 20;
let markers = 5000;
const builds = args.filter((a) => a.includes("=")).map((a) => a.split("="));
if (builds.length === 0) {
  console.error("usage: node bench/compare-echo.mjs [--rounds N] [--direct] label=/worktree ...");
  process.exit(2);
}

// The engine proxy's exec streams are opened with allowHalfOpen: a one-byte
// write toward Docker is the keystroke leaving, the next data from Docker its echo.
const tap = { armed: false, sent: 0, echoed: 0 };
const connect = net.connect;
net.connect = function tapped(...connectArgs) {
  const socket = connect.apply(this, connectArgs);
  if (connectArgs[0]?.allowHalfOpen) {
    const write = socket.write;
    socket.write = function (chunk, ...rest) {
      if (tap.armed && !tap.sent && chunk?.length === 1) tap.sent = performance.now();
      return write.call(this, chunk, ...rest);
    };
    socket.on("data", () => {
      if (tap.armed && tap.sent && !tap.echoed) tap.echoed = performance.now();
    });
  }
  return socket;
};

const { setup } = await import(join(ROOT, "scripts/lib/setup.mjs"));
const { findContainer } = await import(join(ROOT, "bench/lib/workspace-container.mjs"));
const env = await setup();
Object.assign(process.env, env);

const cache = process.env.TERMINAL_BENCH_CACHE ?? join(ROOT, "node_modules/.cache/terminal-bench/node_modules");
const ptyServer = spawn(process.execPath, [join(ROOT, "bench/lib/bare-pty-server.mjs"), cache], {
  stdio: ["ignore", "pipe", "inherit"],
});
const ptyPort = await new Promise((resolve, reject) => {
  ptyServer.stdout.once("data", (d) => resolve(Number(String(d).trim())));
  ptyServer.once("exit", (code) => reject(new Error(`the PTY server exited with ${code}: is node-pty in ${cache}?`)));
});

const servers = [];
const systems = [];
const legs = {};
try {
  for (const [label, root] of builds) {
    const { startDevServer } = await import(join(root, "scripts/lib/dev-server.mjs"));
    const server = await startDevServer(env);
    servers.push(server);
    const password = /IDE_PASSWORD="?([^"\n]*)/.exec(readFileSync(join(root, ".dev.vars"), "utf8"))?.[1];
    const owner = await signIn(server.baseUrl, password);
    const workspace = (await owner.json("/api/workspaces", { method: "POST", body: { name: "echo" } })).id;
    const ours = await openIde(server.baseUrl, owner, workspace);
    await roundTrip(ours);
    const container = await findContainer(owner, workspace);
    const shellEnv = ["-e", "TERM=xterm-256color", "-e", "HOME=/root", "-e", "LANG=C.UTF-8", "-w", "/workspace"];
    const tmux = await openPty(ptyPort, [
      ...["docker", "exec", "-it", ...shellEnv, container],
      ...["tmux", "new-session", "-A", "-s", "bench-direct", "-c", "/workspace"],
    ]);
    await roundTrip(tmux);
    systems.push([`ours ${label}`, ours], [`tmux direct ${label}`, tmux]);
    if (flag("--direct")) {
      const entry = await findWorkerd(root, server);
      if (!entry) throw new Error(`${label}: workerd's entry socket not found`);
      // A terminal of its own: a second client of the same tmux session would redraw for both.
      const direct = await openIde(server.baseUrl, owner, workspace, { entry, name: "direct" });
      await roundTrip(direct);
      systems.push([`no vite ${label}`, direct]);
    }
  }
  for (const [, session] of systems) for (let i = 0; i < WARMUP; i++) await keystroke(session);
  const samples = Object.fromEntries(systems.map(([label]) => [label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < systems.length; k++) {
      const [label, session] = systems[(round + k) % systems.length];
      samples[label].push(await keystroke(session, label));
    }
  }

  console.log(`\nkeystroke echo, ${ROUNDS} rounds by turns (ms)`);
  console.log(`${"system".padEnd(22)}     p25     p50     p75     p90`);
  for (const [label, values] of Object.entries(samples)) {
    const figures = [25, 50, 75, 90].map((p) => percentile(values, p).toFixed(3).padStart(7));
    console.log(`${label.padEnd(22)} ${figures.join(" ")}`);
  }
  console.log("\nwhere the time goes, p50 (ms): to the engine proxy / Docker and the container / back");
  for (const [label, leg] of Object.entries(legs)) {
    const [up, docker, down] = [leg.up, leg.docker, leg.down].map((v) => percentile(v, 50).toFixed(3));
    console.log(`${label.padEnd(22)} ${up} / ${docker} / ${down} (n=${leg.up.length})`);
  }
  console.log("");
  for (const [label] of builds) {
    const ours = percentile(samples[`ours ${label}`], 50);
    const reference = percentile(samples[`tmux direct ${label}`], 50);
    console.log(`${label}: p50 ${(ours / reference).toFixed(2)}x tmux direct (+${(ours - reference).toFixed(3)} ms)`);
  }
} finally {
  for (const [, session] of systems) session.close();
  ptyServer.kill("SIGKILL");
  for (const server of servers) await server.stop();
}
process.exit(0);

/** One keystroke timed to its echo (and erased again); its legs recorded when the engine proxy saw it. */
async function keystroke(session, label) {
  const echoed = session.next();
  Object.assign(tap, { armed: true, sent: 0, echoed: 0 });
  const start = performance.now();
  session.send("x");
  await echoed;
  const end = performance.now();
  tap.armed = false;
  if (label && tap.sent && tap.echoed) {
    legs[label] ??= { up: [], docker: [], down: [] };
    legs[label].up.push(tap.sent - start);
    legs[label].docker.push(tap.echoed - tap.sent);
    legs[label].down.push(end - tap.echoed);
  }
  const erased = session.next();
  session.send("\x7f");
  await erased;
  return end - start;
}

/** A command whose output differs from its echo, awaited: the shell is up. */
async function roundTrip(session) {
  const n = markers++;
  const done = session.waitFor(new RegExp(`M-${n + 1}-K`));
  session.send(`echo M-$((${n}+1))-K\r`);
  await done;
}

async function signIn(baseUrl, password) {
  const response = await fetch(new URL("/api/session", baseUrl), {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: baseUrl, Connection: "close" },
    body: JSON.stringify({ password }),
  });
  if (response.status !== 204) throw new Error(`sign-in failed: ${response.status}`);
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0];
  const request = (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("Cookie", cookie);
    headers.set("Origin", baseUrl);
    headers.set("Connection", "close");
    let body = init.body;
    if (body !== undefined && typeof body !== "string") {
      headers.set("Content-Type", "application/json");
      body = JSON.stringify(body);
    }
    return fetch(new URL(path, baseUrl), { ...init, headers, body });
  };
  return {
    cookie,
    fetch: request,
    async json(path, init) {
      const answer = await request(path, init);
      if (!answer.ok) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
      return answer.json();
    },
  };
}

/** Output as it comes, with waiters for the next chunk or a pattern. */
function makeSession(send, close) {
  let chunks = 0;
  let tail = "";
  const waiters = new Set();
  const wait = (done, what) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; tail ${JSON.stringify(tail.slice(-200))}`));
      }, 60_000);
      waiters.add(check);
    });
  return {
    send,
    close,
    push(text) {
      chunks++;
      tail = (tail + text).slice(-4096);
      for (const waiter of [...waiters]) waiter();
    },
    next() {
      const start = chunks;
      return wait(() => chunks > start, "output");
    },
    waitFor(pattern) {
      tail = "";
      return wait(() => pattern.test(tail), pattern);
    },
  };
}

/** The IDE's terminal socket, through vite dev, or straight to workerd's entry (`direct`). */
async function openIde(baseUrl, owner, workspace, direct) {
  const url = new URL(`/ws/workspaces/${workspace}/terminals/${direct?.name ?? "bench"}?cols=120&rows=40`, baseUrl);
  const headers = { Origin: baseUrl, Cookie: owner.cookie };
  let target = url.href.replace(/^http/, "ws");
  if (direct) {
    Object.assign(headers, direct.entry.headers(url.href), { Host: url.host });
    target = `ws://127.0.0.1:${direct.entry.port}${url.pathname}${url.search}`;
  }
  const ws = new WebSocket(target, { headers });
  ws.binaryType = "nodebuffer";
  const session = makeSession(
    (text) => ws.send(Buffer.from(text)),
    () => ws.close(),
  );
  let received = 0;
  let acked = 0;
  await new Promise((resolve, reject) => {
    ws.on("message", (data, isBinary) => {
      if (!isBinary) {
        if (JSON.parse(data.toString()).type === "ready") {
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
    ws.on("close", (code) => reject(new Error(`closed before ready (${code})`)));
  });
  return session;
}

/** A command on a PTY of this machine (bench/lib/bare-pty-server.mjs). */
async function openPty(port, argv) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/?argv=${encodeURIComponent(JSON.stringify(argv))}`);
  const session = makeSession(
    (text) => ws.send(Buffer.from(text)),
    () => ws.close(),
  );
  ws.on("message", (data) => session.push(data.toString("latin1")));
  await new Promise((resolve, reject) => {
    ws.on("open", resolve);
    ws.on("error", reject);
  });
  return session;
}

/**
 * The entry socket of the workerd that `vite dev` started in `root`: the one
 * of its loopback ports that answers /api/health given miniflare's headers
 * (the URL the request had, and the worker to route it to).
 */
async function findWorkerd(root, server) {
  const cwd = root.replace(/\/$/, "");
  const pids = readdirSync("/proc").filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd" && readlinkSync(`/proc/${pid}/cwd`) === cwd;
    } catch {
      return false;
    }
  });
  const listening = execFileSync("ss", ["-ltnp"], { encoding: "utf8" });
  const headers = (url) => ({ "MF-Original-URL": url, "MF-Route-Override": server.workerName });
  for (const pid of pids) {
    for (const [, port] of listening.matchAll(new RegExp(`127\\.0\\.0\\.1:(\\d+) .*pid=${pid},`, "g"))) {
      try {
        const answer = await fetch(`http://127.0.0.1:${port}/api/health`, {
          headers: headers(`${server.baseUrl}/api/health`),
          signal: AbortSignal.timeout(2000),
        });
        if ((await answer.text()).includes('"ok":true')) return { port: Number(port), headers };
      } catch {
        // Not the entry socket.
      }
    }
  }
  return undefined;
}
