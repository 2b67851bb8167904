import { cloudflare } from "@cloudflare/vite-plugin";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { devServerGuards, isPreviewRequest } from "./scripts/lib/dev-server-guards.mjs";
import { ideSourcesGuard } from "./scripts/lib/ide-sources-guard.mjs";

// The IDE serves on PORT (5173). Its own hot-reload socket has a port of its
// own so that Vite hot-reload sockets on preview hostnames
// ({port}-{id}-{token}.localhost) reach the Worker, which bridges them to the
// dev server inside the workspace's container.
const port = Number(process.env.PORT ?? 5173);
const hmrPort = Number(process.env.HMR_PORT ?? port + 1);
/** Previews' domain under `vite dev`: the Worker's PREVIEW_DOMAIN and the dev-server guards' scope. */
const previewDomain = `localhost:${port}`;

/**
 * Variables that differ under `vite dev`: local preview hostnames, the
 * outbound proxy the engine proxy started (scripts/lib/outbound-proxy.mjs),
 * a test's Access team and a test's scripted agent model (test/support/scripted-model.ts).
 */
function devVars(): Record<string, string> {
  const vars: Record<string, string> = { PREVIEW_DOMAIN: previewDomain };
  for (const name of [
    "ACCESS_TEAM_DOMAIN",
    "ACCESS_AUD",
    "AGENT_OPENAI_BASE_URL",
    "AGENT_MODEL",
    "AGENT_OPENAI_API_KEY",
    "LOCAL_OUTBOUND_PROXY",
    "LOCAL_OUTBOUND_TOKEN",
  ] as const) {
    const value = process.env[name];
    if (value) vars[name] = value;
  }
  return vars;
}

/** INSPECTOR_PORT (e.g. 9229) turns the Worker's inspector on; it is off otherwise. */
function inspectorPort(): number | false {
  const value = process.env.INSPECTOR_PORT;
  if (!value) return false;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`INSPECTOR_PORT is not a port: ${value}`);
  return port;
}

/**
 * The test dev server (CLOUD_IDE_TEST_HOOKS=1, scripts/lib/dev-server.mjs)
 * runs the Worker with test hooks (worker/testing/test-entry.ts); `vite build`
 * never does, so no hook reaches a deployed Worker.
 */
const testEntry = process.env.CLOUD_IDE_TEST_HOOKS === "1" ? { main: "./worker/testing/test-entry.ts" } : {};

export default defineConfig(({ command }) => ({
  // The app's test hooks (app/test-hooks.ts) exist only under the test dev server.
  define: {
    __CLOUD_IDE_TEST_HOOKS__: JSON.stringify(command === "serve" && process.env.CLOUD_IDE_TEST_HOOKS === "1"),
  },
  plugins: [
    devServerGuards({ previewDomain }),
    // Of this checkout, only the modules the IDE's page imports (issue 42); a
    // preview hostname's requests are its workspace's, and pass untouched (issue 43).
    ideSourcesGuard({ skip: (req) => isPreviewRequest(req.url, req.headers.host, previewDomain) }),
    react(),
    cloudflare({
      config: (config) => {
        // Tests run under a name of their own so they can remove exactly the
        // containers they started (workerd names them `workerd-{name}-...`).
        // The docker shim scopes the plugin's clean-up on exit to this name.
        process.env.CLOUD_IDE_WORKER_NAME ??= config.name;
        return {
          name: process.env.CLOUD_IDE_WORKER_NAME,
          // In development previews are {port}-{id}-{token}.localhost:{port}.
          vars: command === "serve" ? { ...config.vars, ...devVars() } : config.vars,
          ...(command === "serve" ? testEntry : {}),
        };
      },
      // The Worker's V8 inspector evaluates code next to IDE_PASSWORD and
      // SESSION_SECRET: off unless INSPECTOR_PORT asks for it (loopback only).
      inspectorPort: inspectorPort(),
      persistState: process.env.CLOUD_IDE_STATE_DIR ? { path: process.env.CLOUD_IDE_STATE_DIR } : true,
    }),
  ],
  server: {
    port,
    strictPort: true,
    host: "localhost",
    allowedHosts: [".localhost"],
    // Vite's default CORS lets any *.localhost origin read responses, and
    // preview hostnames are *.localhost here: no CORS, as in production.
    cors: false,
    // Listens on loopback only, like the IDE itself (Vite's default is every interface).
    ws: { port: hmrPort, host: "localhost" },
    // Transforms the app's modules as the server starts, not on the first page load: the first page
    // opened after `npm start` (or a test run's first) no longer waits for the whole app to be compiled.
    warmup: { clientFiles: ["./app/main.tsx"] },
  },
  preview: { port, strictPort: true },
}));
