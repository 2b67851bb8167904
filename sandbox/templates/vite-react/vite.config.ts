import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// `host: true` listens on 0.0.0.0, which the IDE's preview needs. The IDE's
// preview hostnames are allowed through __VITE_ADDITIONAL_SERVER_ALLOWED_HOSTS,
// set in the workspace's shell environment.
export default defineConfig({
  plugins: [react()],
  server: { host: true, port: 5173 },
});
