/**
 * Starts the real IDE once for the integration and e2e tiers (see
 * scripts/lib/dev-server.mjs) and removes this run's containers afterwards.
 * A stand-in Cloudflare Access team is configured too, so tests can sign in
 * both ways.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JWK } from "jose";
import type { TestProject } from "vitest/node";
import { freePort, startDevServer } from "../../scripts/lib/dev-server.mjs";
import { readDevVars } from "../../scripts/lib/dev-vars.mjs";
import { setup } from "../../scripts/lib/setup.mjs";
import { npmCacheBind } from "../frameworks/apps.mjs";
import { ACCESS_AUD, startAccessTeam } from "./access-team";
import { SCRIPTED_MODEL_ID, SCRIPTED_MODEL_KEY, startScriptedModel } from "./scripted-model";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    port: number;
    /** The IDE's own hot-reload (Vite HMR) port. */
    hmrPort: number;
    /** The Worker's V8 inspector, on for tests so they can show no workspace reaches it. */
    inspectorPort: number;
    workerName: string;
    /** The owner password the IDE under test accepts (from .dev.vars). */
    password: string;
    /** SESSION_SECRET of the IDE under test, to forge and expire tokens in tests. */
    sessionSecret: string;
    accessTeamDomain: string;
    accessPrivateJwk: JWK;
    /** The IDE's whole output (workerd, the Worker's logs), written as it runs. */
    serverLog: string;
    /** Where workerd keeps this IDE's local state (R2's objects among it: test/support/r2-objects.ts). */
    stateDir: string;
  }
}

export default async function globalSetup(project: TestProject) {
  const env = await setup();
  // scripts/test.mjs names the log (and prints its tail when the tier fails); a bare `vitest run` gets one in tmp.
  const logFile = process.env.CLOUD_IDE_SERVER_LOG ?? join(mkdtempSync(join(tmpdir(), "cloud-ide-log-")), "server.log");
  const team = await startAccessTeam();
  // The agent panel's model: no real one is reachable here, so a scripted one on loopback (its real provider).
  const model = await startScriptedModel();
  const inspectorPort = await freePort();
  const server = await startDevServer(
    {
      ...env,
      ACCESS_TEAM_DOMAIN: team.teamDomain,
      ACCESS_AUD,
      INSPECTOR_PORT: String(inspectorPort),
      AGENT_OPENAI_BASE_URL: model.baseUrl,
      AGENT_MODEL: SCRIPTED_MODEL_ID,
      AGENT_OPENAI_API_KEY: SCRIPTED_MODEL_KEY,
    },
    {
      verbose: Boolean(process.env.CLOUD_IDE_TEST_VERBOSE),
      logFile,
      // The frameworks matrix downloads hundreds of packages per run: npm's cache lives in a volume of its own.
      // (test/frameworks/apps.mjs: the volume, shared with the previews bench.)
      appBinds: project.name === "frameworks" ? [npmCacheBind()] : [],
    },
  );
  const vars = readDevVars();
  project.provide("baseUrl", server.baseUrl);
  project.provide("port", server.port);
  project.provide("hmrPort", server.hmrPort);
  project.provide("inspectorPort", inspectorPort);
  project.provide("workerName", server.workerName);
  project.provide("password", vars.IDE_PASSWORD ?? "");
  project.provide("sessionSecret", vars.SESSION_SECRET ?? "");
  project.provide("accessTeamDomain", team.teamDomain);
  project.provide("accessPrivateJwk", team.privateJwk);
  project.provide("serverLog", logFile);
  project.provide("stateDir", server.stateDir);
  return async () => {
    await server.stop();
    await team.close();
    await model.close();
  };
}
