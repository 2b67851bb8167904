/**
 * Starts the real IDE once for the integration and e2e tiers (see
 * scripts/lib/dev-server.mjs) and removes this run's containers afterwards.
 */
import type { TestProject } from "vitest/node";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";
import { setup } from "../../scripts/lib/setup.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    port: number;
    workerName: string;
    /** The owner password the IDE under test accepts (from .dev.vars). */
    password: string;
  }
}

export default async function globalSetup(project: TestProject) {
  const env = await setup();
  const server = await startDevServer(env, { verbose: Boolean(process.env.CLOUD_IDE_TEST_VERBOSE) });
  project.provide("baseUrl", server.baseUrl);
  project.provide("port", server.port);
  project.provide("workerName", server.workerName);
  project.provide("password", env.IDE_PASSWORD ?? "");
  return () => server.stop();
}
