import { defineConfig } from "vitest/config";

// Five tiers. `unit` is pure logic in Node. `integration`, `e2e` and
// `frameworks` start the real IDE (`vite dev`, the Worker in workerd,
// containers in Docker) once per run through test/support/global-setup.ts;
// `e2e` drives Debian's Chromium; `frameworks` makes apps with real
// generators from the npm registry and previews them in Chromium.
// `deployed` runs the production bundle under plain `wrangler dev`.
const system = {
  globalSetup: ["test/support/global-setup.ts"],
  // Each test deletes the workspaces it made (test/support/cleanup.ts).
  setupFiles: ["test/support/cleanup.ts"],
  fileParallelism: false,
  testTimeout: 120_000,
  hookTimeout: 300_000,
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          environment: "node",
          include: ["test/unit/**/*.test.ts", "{worker,protocol,app}/**/*.test.{ts,tsx}", "cli/**/*.test.ts"],
        },
      },
      { test: { name: "integration", include: ["test/integration/**/*.test.ts"], ...system } },
      { test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], ...system } },
      {
        test: {
          name: "frameworks",
          include: ["test/frameworks/**/*.test.ts"],
          ...system,
          // Rows run side by side (it.concurrent) in workspaces of their own, so the minute each
          // waits on its hot-reload socket overlaps; a test's afterEach clean-up would delete the
          // others' workspaces, so the file deletes its own at the end instead.
          setupFiles: [],
          maxConcurrency: 4,
          testTimeout: 15 * 60_000,
        },
      },
      {
        test: {
          name: "deployed",
          // The loopback previews too: the production path of a dev server on localhost (issue 43).
          include: ["test/deployed/**/*.test.ts", "test/integration/loopback-previews.test.ts"],
          ...system,
          // `vite build`, then plain `wrangler dev` on its output (test/deployed/global-setup.ts).
          globalSetup: ["test/deployed/global-setup.ts"],
        },
      },
    ],
  },
});
