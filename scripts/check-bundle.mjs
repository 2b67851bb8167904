// Checks the production build (`vite build`, which `wrangler deploy` ships)
// for test hooks: they live in worker/testing/ and app/test-hooks.ts and must never be deployed.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./lib/setup.mjs";

/** Names only the test entry (worker/testing/test-entry.ts) and the app's test hooks (app/test-hooks.ts) have. */
export const TEST_HOOK_MARKERS = [
  "testConfigure",
  "expireShare",
  "test-hooks",
  "test-entry",
  "lifecycle-overrides",
  "__cloudIde",
  "terminalText",
];

function* scripts(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* scripts(path);
    else if (/\.(m?js|json)$/.test(entry.name) && !entry.name.endsWith(".map")) yield path;
  }
}

export function findTestHooks(dist) {
  const found = [];
  for (const file of scripts(dist)) {
    const text = readFileSync(file, "utf8");
    for (const marker of TEST_HOOK_MARKERS) if (text.includes(marker)) found.push(`${file}: ${marker}`);
  }
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = findTestHooks(join(ROOT, "dist"));
  if (found.length > 0) {
    console.error(`The production bundle holds test hooks:\n${found.join("\n")}`);
    process.exit(1);
  }
  console.log("The production bundle holds no test hook.");
}
