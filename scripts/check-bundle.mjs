// Checks the production build (`vite build`, which `wrangler deploy` ships):
// it must be there (the Worker and the app, not an empty or missing `dist`),
// and it must hold no test hook: they live in worker/testing/ and
// app/test-hooks.ts and must never be deployed. `npm run build`,
// `npm run deploy` and `npm test` run it after every build.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT } from "./lib/setup.mjs";

/** Names only the test entry (worker/testing/test-entry.ts) and the app's test hooks (app/test-hooks.ts) have. */
export const TEST_HOOK_MARKERS = [
  "testConfigure",
  "expireShare",
  "testGrant",
  "testExpireInvite",
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

/**
 * What is missing from a build in `dist`: the Worker (a folder with the
 * `wrangler.json` that `vite build` writes and the script it names as main)
 * and the app (`client/index.html` and its scripts). Empty when it is whole.
 * @param {string} dist
 * @returns {string[]}
 */
export function missingFromBundle(dist) {
  if (!existsSync(dist)) return [`${dist} does not exist: run \`vite build\` first`];
  const missing = [];
  const workers = readdirSync(dist, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dist, entry.name, "wrangler.json")))
    .map((entry) => join(dist, entry.name));
  if (workers.length === 0) missing.push("the Worker (no dist/*/wrangler.json)");
  for (const worker of workers) {
    const { main } = JSON.parse(readFileSync(join(worker, "wrangler.json"), "utf8"));
    if (typeof main !== "string" || !existsSync(join(worker, main))) {
      missing.push(`the Worker's script (${relative(dist, worker)}/wrangler.json names main ${JSON.stringify(main)})`);
    }
  }
  const client = join(dist, "client");
  if (!existsSync(join(client, "index.html"))) missing.push("the app (no dist/client/index.html)");
  else if (![...scripts(client)].some((file) => file.endsWith(".js")))
    missing.push("the app's scripts (no .js in dist/client)");
  return missing;
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
  const dist = join(ROOT, "dist");
  const missing = missingFromBundle(dist);
  if (missing.length > 0) {
    console.error(`The production bundle is not whole; missing:\n${missing.join("\n")}`);
    process.exit(1);
  }
  const found = findTestHooks(dist);
  if (found.length > 0) {
    console.error(`The production bundle holds test hooks:\n${found.join("\n")}`);
    process.exit(1);
  }
  console.log("The production bundle is whole and holds no test hook.");
}
