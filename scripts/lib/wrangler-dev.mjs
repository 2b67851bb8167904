// Starts the IDE as it deploys, for the `deployed` test tier: `vite build`
// (the production bundle, no test hook), then plain `wrangler dev` on its
// output (workerd with the built Worker and assets, not the vite dev server),
// against the same Docker engine, local images and docker shim env as
// scripts/lib/dev-server.mjs, under a worker name of its own so that stop()
// removes exactly the containers and images this run made.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findTestHooks, missingFromBundle } from "../check-bundle.mjs";
import { freePort, removeContainers } from "./dev-server.mjs";
import { startEngineProxyThread } from "./engine-proxy-thread.mjs";
import { startImageLedger } from "./image-ledger.mjs";
import { configuredInstanceType, dockerLimits } from "./instance-types.mjs";
import { waitForIde } from "./server-ready.mjs";
import { ROOT } from "./setup.mjs";

/** Where `vite build` points `wrangler deploy` (the Cloudflare plugin writes it on every build). */
const DEPLOY_REDIRECT = join(ROOT, ".wrangler/deploy/config.json");

/**
 * @param {NodeJS.ProcessEnv} env from setup()
 * @param {{ logFile?: string }} options `logFile` gets the build's and the server's whole output, time-stamped
 * @returns {Promise<{ baseUrl: string, port: number, workerName: string, stop: () => Promise<void> }>}
 */
export async function startWranglerDev(env, { logFile } = {}) {
  const port = await freePort();
  const inspectorPort = await freePort();
  const workerName = `cloud-ide-deployed-${randomBytes(3).toString("hex")}`;
  const work = mkdtempSync(join(tmpdir(), "cloud-ide-deployed-"));
  const outDir = join(work, "dist");
  const stateDir = join(work, "state");
  const log = logFile ? createWriteStream(logFile) : undefined;
  const output = [];
  const keep = (chunk) => {
    const text = chunk.toString();
    output.push(text);
    if (output.length > 200) output.shift();
    if (log) {
      const time = new Date().toISOString().slice(11, 23);
      log.write(text.replace(/^(?=.)/gm, `${time} `));
    }
  };

  // The build, as `npm run build` makes it (no CLOUD_IDE_TEST_HOOKS), into a folder of its own.
  const redirect = existsSync(DEPLOY_REDIRECT) ? readFileSync(DEPLOY_REDIRECT) : undefined;
  const build = spawnSync("vite", ["build", "--outDir", outDir], {
    cwd: ROOT,
    env: { ...withoutTestHooks(env), CLOUD_IDE_WORKER_NAME: workerName },
    encoding: "utf8",
  });
  // The build pointed `wrangler deploy` at this test build: point it back.
  if (redirect) writeFileSync(DEPLOY_REDIRECT, redirect);
  else rmSync(DEPLOY_REDIRECT, { force: true });
  keep(`${build.stdout ?? ""}${build.stderr ?? ""}`);
  if (build.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    throw new Error(`vite build failed (${build.status}):\n${output.join("")}`);
  }
  const problems = [...missingFromBundle(outDir), ...findTestHooks(outDir)];
  if (problems.length > 0) {
    rmSync(work, { recursive: true, force: true });
    throw new Error(`the production bundle is not what deploys:\n${problems.join("\n")}`);
  }
  const config = join(outDir, readdirWorker(outDir), "wrangler.json");

  const ledger = startImageLedger(workerName);
  const engine = await startEngineProxyThread({ env, limits: dockerLimits(configuredInstanceType(ROOT)) });
  const server = spawn(
    "wrangler",
    [
      "dev",
      "--config",
      config,
      "--port",
      String(port),
      "--ip",
      "localhost",
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      stateDir,
      // Previews are {port}-{id}-{token}.localhost:{port} here, as under `vite dev`.
      "--var",
      `PREVIEW_DOMAIN:localhost:${port}`,
      // The outbound proxy that checks where a workspace's requests resolve (scripts/lib/outbound-proxy.mjs).
      ...Object.entries(engine.workerVars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
      "--show-interactive-dev-session=false",
    ],
    {
      cwd: ROOT,
      env: {
        ...withoutTestHooks(env),
        WRANGLER_DOCKER_HOST: engine.dockerHost,
        CLOUD_IDE_WORKER_NAME: workerName,
        // No prompts, no update checks, no telemetry.
        CI: "1",
        WRANGLER_SEND_METRICS: "false",
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  server.stdout.on("data", keep);
  server.stderr.on("data", keep);

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
    rmSync(work, { recursive: true, force: true });
  };

  const baseUrl = `http://localhost:${port}`;
  try {
    await waitForIde(baseUrl, server, output, { name: "wrangler dev", ms: 300_000 });
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, port, workerName, stop };
}

/** The build's Worker folder (the one with a wrangler.json; the other is the app's `client`). */
function readdirWorker(outDir) {
  const missing = missingFromBundle(outDir);
  if (missing.length > 0) throw new Error(missing.join("\n"));
  const worker = readdirSync(outDir).find((name) => existsSync(join(outDir, name, "wrangler.json")));
  if (!worker) throw new Error(`no Worker in ${outDir}`);
  return worker;
}

/** The environment without the test hooks switch: the deployed tier runs what deploys. */
function withoutTestHooks(env) {
  const { CLOUD_IDE_TEST_HOOKS: _hooks, ...rest } = env;
  return rest;
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group has already exited.
  }
}
