/**
 * Starts the real IDE for the integration and e2e tiers: `vite dev` with the
 * Worker in workerd and containers in Docker, on a free port, under a worker
 * name of this run's own. Tears it down and removes this run's containers.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { ROOT, setup } from "../../scripts/lib/setup.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    port: number;
    workerName: string;
  }
}

export default async function globalSetup(project: TestProject) {
  const env: NodeJS.ProcessEnv = await setup();
  const port = await freePort();
  const hmrPort = await freePort();
  const workerName = `cloud-ide-test-${randomBytes(3).toString("hex")}`;
  const stateDir = mkdtempSync(join(tmpdir(), "cloud-ide-state-"));
  const server = spawn("vite", ["dev"], {
    cwd: ROOT,
    env: {
      ...env,
      PORT: String(port),
      HMR_PORT: String(hmrPort),
      CLOUD_IDE_WORKER_NAME: workerName,
      CLOUD_IDE_STATE_DIR: stateDir,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 200) output.shift();
    if (process.env.CLOUD_IDE_TEST_VERBOSE) process.stderr.write(chunk);
  };
  server.stdout?.on("data", keep);
  server.stderr?.on("data", keep);

  const baseUrl = `http://localhost:${port}`;
  try {
    await waitForServer(baseUrl, server, output);
  } catch (error) {
    await stop(server, workerName, stateDir);
    throw error;
  }
  project.provide("baseUrl", baseUrl);
  project.provide("port", port);
  project.provide("workerName", workerName);

  return async () => {
    await stop(server, workerName, stateDir);
  };
}

async function waitForServer(baseUrl: string, server: ChildProcess, output: string[]) {
  const deadline = Date.now() + 240_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) {
      throw new Error(`vite dev exited with ${server.exitCode}:\n${output.join("")}`);
    }
    try {
      const response = await fetch(`${baseUrl}/api/health`);
      if (response.status < 500) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`vite dev did not answer within 240 s:\n${output.join("")}`);
}

async function stop(server: ChildProcess, workerName: string, stateDir: string) {
  if (server.pid && server.exitCode === null) {
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {
      // Already gone.
    }
    await new Promise((r) => setTimeout(r, 1000));
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {
      // Exited on SIGTERM.
    }
  }
  removeContainers(workerName);
  rmSync(stateDir, { recursive: true, force: true });
}

/** Removes every container this run started (app containers and their sidecars). */
export function removeContainers(workerName: string) {
  const ids = execFileSync("docker", ["ps", "-aq", "--filter", `name=workerd-${workerName}-`], {
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean);
  if (ids.length > 0) execFileSync("docker", ["rm", "-f", ...ids], { stdio: "ignore" });
}

function freePort(): Promise<number> {
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
