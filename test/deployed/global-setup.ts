/**
 * The `deployed` tier: the production bundle (`vite build`, no test hook)
 * run by plain `wrangler dev` with real containers (scripts/lib/wrangler-dev.mjs),
 * once per run; its containers and images are removed afterwards. Provides
 * what the shared test helpers (test/support/) inject.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { readDevVars } from "../../scripts/lib/dev-vars.mjs";
import { setup } from "../../scripts/lib/setup.mjs";
import { startWranglerDev } from "../../scripts/lib/wrangler-dev.mjs";

export default async function globalSetup(project: TestProject) {
  const env = await setup();
  // scripts/test.mjs names the log (and prints its tail when the tier fails); a bare `vitest run` gets one in tmp.
  const logFile = process.env.CLOUD_IDE_SERVER_LOG ?? join(mkdtempSync(join(tmpdir(), "cloud-ide-log-")), "server.log");
  const server = await startWranglerDev(env, { logFile });
  const vars = readDevVars();
  project.provide("baseUrl", server.baseUrl);
  project.provide("port", server.port);
  project.provide("workerName", server.workerName);
  project.provide("password", vars.IDE_PASSWORD ?? "");
  project.provide("sessionSecret", vars.SESSION_SECRET ?? "");
  project.provide("serverLog", logFile);
  return async () => {
    await server.stop();
  };
}
