import { cloudflare } from "@cloudflare/vite-plugin";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The IDE serves on PORT (5173). Its own hot-reload socket has a port of its
// own so that Vite hot-reload sockets on preview hostnames
// ({port}-{id}-{token}.localhost) reach the Worker, which bridges them to the
// dev server inside the workspace's container.
const port = Number(process.env.PORT ?? 5173);
const hmrPort = Number(process.env.HMR_PORT ?? port + 1);

export default defineConfig({
  plugins: [
    react(),
    cloudflare({
      config: (config) => ({
        vars: { ...config.vars, PREVIEW_DOMAIN: `localhost:${port}` },
      }),
    }),
  ],
  server: {
    port,
    strictPort: true,
    host: "localhost",
    allowedHosts: [".localhost"],
    hmr: { port: hmrPort },
  },
  preview: { port, strictPort: true },
});
