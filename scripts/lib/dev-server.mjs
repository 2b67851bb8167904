// Starts the real IDE (`vite dev`: the Worker in workerd, containers in
// Docker) for tests and benchmarks, on free ports and under a worker name of
// its own, so that stop() removes exactly the containers this run started.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEngineProxyThread } from "./engine-proxy-thread.mjs";
import { startImageLedger } from "./image-ledger.mjs";
import { configuredInstanceType, dockerLimits } from "./instance-types.mjs";
import { PortTaken, waitForIde } from "./server-ready.mjs";
import { ROOT } from "./setup.mjs";

/** Test names the outbound proxy resolves itself: one to loopback each way, one to a private address. */
export const OUTBOUND_TEST_HOSTS = {
  "loopback.resolves.test": "127.0.0.1",
  "loopback6.resolves.test": "::1",
  "private.resolves.test": "10.0.0.1",
};

/**
 * @param {NodeJS.ProcessEnv} env from setup()
 * @param {{ verbose?: boolean, logFile?: string, appBinds?: string[] }} options `logFile` gets the
 *   server's whole output, each line stamped with the time (for a failed CI run);
 *   `appBinds`: volumes every workspace container gets (`name:/path`: the frameworks tier's npm cache)
 * @returns {Promise<{ baseUrl: string, port: number, hmrPort: number, workerName: string, stateDir: string, stop: () => Promise<void>, restart: () => Promise<void> }>}
 */
export async function startDevServer(env, { verbose = false, logFile, appBinds = [] } = {}) {
  let port = 0;
  let hmrPort = 0;
  const workerName = `cloud-ide-test-${randomBytes(3).toString("hex")}`;
  const stateDir = mkdtempSync(join(tmpdir(), "cloud-ide-state-"));
  // What this run's containers make, and only that, is removed at the end.
  const ledger = startImageLedger(workerName);
  const output = [];
  const log = logFile ? createWriteStream(logFile) : undefined;
  const keep = (chunk) => {
    const text = chunk.toString();
    output.push(text);
    if (output.length > 200) output.shift();
    if (verbose) process.stderr.write(chunk);
    if (log) {
      const time = new Date().toISOString().slice(11, 23);
      log.write(text.replace(/^(?=.)/gm, `${time} `));
    }
  };
  // workerd reaches Docker through this (loopback-only sidecar ports, container limits); what it
  // logs (a Docker call left unanswered) goes into the server's output.
  const engine = await startEngineProxyThread({
    env,
    limits: dockerLimits(configuredInstanceType(ROOT)),
    log: (message) => keep(`${message}\n`),
    // Names that resolve to this machine for the outbound tests (test/integration/outbound-names.test.ts),
    // without editing /etc/hosts.
    outboundHosts: OUTBOUND_TEST_HOSTS,
    appBinds,
    // A tmpfs of a given size for a workspace whose test asks for one (test/integration/disk-full.test.ts).
    smallDisks: true,
  });
  // --bypass-lock: a test run may share the project with a running `npm start`.
  const spawnVite = () =>
    spawn("vite", ["dev", "--bypass-lock"], {
      cwd: ROOT,
      env: {
        ...env,
        PORT: String(port),
        HMR_PORT: String(hmrPort),
        WRANGLER_DOCKER_HOST: engine.dockerHost,
        ...engine.workerVars,
        CLOUD_IDE_WORKER_NAME: workerName,
        CLOUD_IDE_STATE_DIR: stateDir,
        // The Worker with test hooks (expiring a share link now, a tiny idle limit): worker/testing/test-entry.ts.
        CLOUD_IDE_TEST_HOOKS: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
  /** @type {import("node:child_process").ChildProcess} */
  let server;

  const stop = async () => {
    if (server.pid && server.exitCode === null) {
      killGroup(server.pid, "SIGTERM");
      await new Promise((r) => setTimeout(r, 1000));
      killGroup(server.pid, "SIGKILL");
    }
    log?.end();
    removeContainers(workerName);
    await engine.close();
    await ledger.removeRecorded();
    rmSync(stateDir, { recursive: true, force: true });
  };

  /**
   * The Worker restarted, as a deploy or a crash restarts it: workerd stopped (SIGTERM, then
   * SIGKILL), then started again on the same port, the same persisted state and the same engine.
   */
  const restart = async () => {
    if (server.pid && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      killGroup(server.pid, "SIGTERM");
      const timer = setTimeout(() => killGroup(server.pid, "SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    keep("restarting the dev server (a test restarts the Worker)\n");
    server = spawnVite();
    server.stdout?.on("data", keep);
    server.stderr?.on("data", keep);
    await waitForIde(`http://localhost:${port}`, server, output, { name: "vite dev (restarted)", ms: 240_000 });
  };

  // Other ports when another process took one of these before vite bound it (server-ready.mjs).
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    hmrPort = await freePort();
    server = spawnVite();
    server.stdout?.on("data", keep);
    server.stderr?.on("data", keep);
    try {
      await waitForIde(`http://localhost:${port}`, server, output, { name: "vite dev", ms: 240_000 });
      break;
    } catch (error) {
      if (error instanceof PortTaken && attempt < 3) {
        keep(`port ${port} or ${hmrPort} was taken before vite bound it; trying others\n`);
        continue;
      }
      await stop();
      throw error;
    }
  }
  return { baseUrl: `http://localhost:${port}`, port, hmrPort, workerName, stateDir, pid: server.pid, stop, restart };
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group has already exited.
  }
}

/** Removes every container (app and sidecar) of a worker name's run. */
export function removeContainers(workerName) {
  const ids = execFileSync("docker", ["ps", "-aq", "--filter", `name=workerd-${workerName}-`], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  // Containers that workerd is removing itself may be gone by now: not an error.
  if (ids.length > 0) spawnSync("docker", ["rm", "-f", ...ids], { stdio: "ignore" });
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
