// `npm start`: set up what is missing, then serve the IDE with `vite dev`.
import { spawn } from "node:child_process";
import { step } from "./lib/run.mjs";
import { failSetup, ROOT, setup } from "./lib/setup.mjs";

let env;
try {
  env = await setup();
} catch (error) {
  failSetup(error);
}
// Imported after setup(): they use npm packages that setup() installs.
const { startEngineProxy } = await import("./lib/engine-proxy.mjs");
const { configuredInstanceType, dockerLimits } = await import("./lib/instance-types.mjs");
// workerd reaches Docker through this (loopback-only sidecar ports, container limits).
const engine = await startEngineProxy({
  env,
  limits: dockerLimits(configuredInstanceType(ROOT)),
  log: (message) => console.error(message),
});
const port = env.PORT ?? "5173";
step(`Serving the IDE at http://localhost:${port}`);
const vite = spawn("vite", ["dev"], {
  cwd: ROOT,
  env: { ...env, WRANGLER_DOCKER_HOST: engine.dockerHost, ...engine.workerVars },
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => vite.kill(signal));
}
vite.on("exit", async (code) => {
  await engine.close();
  process.exit(code ?? 0);
});
