/**
 * Routes that only the test harness may use (e.g. making a share link expire
 * now instead of in five minutes). `CLOUD_IDE_TEST_HOOKS` is set only by
 * vite.config.ts under `vite dev` when the harness asks for it
 * (scripts/lib/dev-server.mjs); wrangler.jsonc never has it, so a deployed
 * Worker answers these routes with 404.
 */
declare global {
  interface Env {
    CLOUD_IDE_TEST_HOOKS?: string;
  }
}

export function testHooksEnabled(env: Env): boolean {
  return env.CLOUD_IDE_TEST_HOOKS === "1";
}
