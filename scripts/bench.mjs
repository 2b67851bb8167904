// `npm run bench`: the same set-up as `npm start`, one real IDE (vite dev +
// workerd + Docker), then every section in bench/*.bench.mjs, each measured
// side by side with its reference in the same run. Prints one table a section.
//   npm run bench                 all sections
//   npm run bench -- terminal     sections whose file name contains "terminal"
//   npm run bench -- soak         the soak, which a plain `npm run bench` leaves out
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { step } from "./lib/run.mjs";
import { failSetup, ROOT, setup } from "./lib/setup.mjs";

let env;
try {
  env = await setup();
} catch (error) {
  failSetup(error);
}
Object.assign(process.env, env);
// After the set-up: the dev server's helpers import npm packages it installs.
const { startDevServer } = await import("./lib/dev-server.mjs");

const filters = process.argv.slice(2);
const sections = readdirSync(join(ROOT, "bench"))
  .filter((f) => f.endsWith(".bench.mjs"))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

// A section may ask for volumes in every workspace container (`appBinds()`: the frameworks'
// npm cache), so the IDE starts once the chosen sections are known.
const loaded = [];
for (const file of sections) {
  try {
    loaded.push({ file, section: await import(pathToFileURL(join(ROOT, "bench", file)).href) });
  } catch (error) {
    loaded.push({ file, error });
  }
}
// A section that exports `onlyWhenNamed` (the 20-minute soak) runs only when a filter names it.
const chosen = loaded.filter(({ section }) => !section?.onlyWhenNamed || filters.length > 0);
loaded.splice(0, loaded.length, ...chosen);
const appBinds = loaded.flatMap(({ section }) => section?.appBinds?.() ?? []);

step("Starting the IDE for benchmarks");
const server = await startDevServer(env, { verbose: Boolean(process.env.CLOUD_IDE_TEST_VERBOSE), appBinds });
let failed = false;
try {
  for (const { file, section, error: importError } of loaded) {
    step(`Benchmark: ${file}`);
    try {
      if (!section) throw importError;
      const rows = await section.run({
        baseUrl: server.baseUrl,
        port: server.port,
        env,
        workerName: server.workerName,
        serverPid: server.pid,
      });
      printTable(section.title ?? file, rows);
    } catch (error) {
      failed = true;
      console.error(`  ${file} failed: ${error?.stack ?? error}`);
    }
  }
} finally {
  await server.stop();
}
process.exit(failed ? 1 : 0);

/** rows: [{ metric, ours, reference?, referenceName?, unit, target? }] */
function printTable(title, rows) {
  console.log(`\n${title}`);
  const header = ["metric", "cloud-ide", "reference", "ratio", "target"];
  const body = rows.map((r) => [
    r.metric,
    fmt(r.ours, r.unit),
    r.reference === undefined ? "-" : `${fmt(r.reference, r.unit)}${r.referenceName ? ` (${r.referenceName})` : ""}`,
    r.reference ? `${(r.ours / r.reference).toFixed(2)}x` : "-",
    r.target ?? "",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => String(row[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of body) console.log(line(row));
}

function fmt(value, unit) {
  if (value === undefined || value === null || Number.isNaN(value)) return "n/a";
  const number = Number.isInteger(value) || value >= 10 ? value.toFixed(0) : value.toFixed(2);
  return `${number} ${unit ?? ""}`.trim();
}
