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
const port = env.PORT ?? "5173";
step(`Serving the IDE at http://localhost:${port}`);
const vite = spawn("vite", ["dev"], { cwd: ROOT, env, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => vite.kill(signal));
}
vite.on("exit", (code) => process.exit(code ?? 0));
