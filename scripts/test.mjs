// `npm test`: the same set-up as `npm start`, then every check CI makes:
// typecheck, lint, unit tests, the production bundle (`wrangler deploy
// --dry-run`), integration tests against real containers, a smoke set
// against the production bundle under plain `wrangler dev` (`deployed`),
// browser end-to-end tests in Debian's Chromium, and the frameworks matrix
// (real generators' apps previewed in Chromium, `frameworks`). Ends with "N passed, N failed".
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pythonFiles, pythonTests } from "./lib/python-checks.mjs";
import { step } from "./lib/run.mjs";
import { ensureChromium, ensurePyflakes, ensureSshClients, failSetup, ROOT, setup } from "./lib/setup.mjs";

// `npm test -- e2e test/e2e/sign-in.test.ts`: tier names pick tiers, anything
// else narrows vitest to matching test files (and runs the Python's tests only when one starts with sandbox).
const args = process.argv.slice(2);
const tierNames = new Set(["static", "unit", "deploy", "integration", "soak", "deployed", "e2e", "frameworks"]);
const tiers = args.filter((arg) => tierNames.has(arg));
const fileFilters = args.filter((arg) => !tierNames.has(arg));
const wanted = (name) => tiers.length === 0 || tiers.includes(name);

let env;
let pyflakes;
try {
  env = await setup();
  env.CHROMIUM_PATH = await ensureChromium();
  if (wanted("static")) pyflakes = await ensurePyflakes();
  await ensureSshClients();
} catch (error) {
  failSetup(error);
}

const reports = join(ROOT, ".cache/test-reports");
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
const failedTests = [];
// Checks that are not tests (typecheck, lint, build) count as one failure each.
let failedChecks = 0;

/** Runs a step; `logFile`: its output goes there (a step running beside another), not to the terminal. */
function sh(label, command, args, { isCheck = true, extraEnv = {}, logFile } = {}) {
  step(label);
  const output = logFile ? openSync(logFile, "w") : undefined;
  return new Promise((resolve) => {
    const stdio = output === undefined ? "inherit" : ["ignore", output, output];
    const child = spawn(command, args, { cwd: ROOT, env: { ...env, ...extraEnv }, stdio });
    child.on("close", (code) => {
      if (output !== undefined) closeSync(output);
      if (code !== 0) {
        failures.push(`${label} (exit ${code})`);
        if (isCheck) failedChecks += 1;
      }
      resolve(code === 0);
    });
  });
}

/** `beside`: the tier runs next to another one; its output is printed whole when it ends. */
async function vitest(project, { beside = false, extraArgs = [] } = {}) {
  const file = join(reports, `${project}.json`);
  const serverLog = join(reports, `${project}-server.log`);
  const logFile = beside ? join(reports, `${project}.log`) : undefined;
  const passed = await sh(
    `Tests: ${project}${beside ? " (beside the integration tier; its output follows when it ends)" : ""}`,
    "vitest",
    [
      "run",
      "--project",
      project,
      ...extraArgs,
      ...fileFilters,
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${file}`,
    ],
    { isCheck: false, extraEnv: { CLOUD_IDE_SERVER_LOG: serverLog }, logFile },
  );
  if (logFile) {
    step(`Tests: ${project} ended; its output:`);
    process.stdout.write(readFileSync(logFile, "utf8"));
  }
  if (!passed) printTail(serverLog, 150);
  try {
    const report = JSON.parse(readFileSync(file, "utf8"));
    totals.passed += report.numPassedTests;
    totals.failed += report.numFailedTests;
    totals.skipped += report.numPendingTests + report.numTodoTests;
    // Name each failed test at the end, where CI's short excerpt of the output shows it.
    for (const suite of report.testResults ?? []) {
      for (const test of suite.assertionResults ?? []) {
        if (test.status !== "failed") continue;
        const file = suite.name.startsWith(ROOT) ? suite.name.slice(ROOT.length + 1) : suite.name;
        const reason = String(test.failureMessages?.[0] ?? "")
          .split("\n")[0]
          .slice(0, 300);
        failedTests.push(`${file} > ${test.fullName}${reason ? `\n    ${reason}` : ""}`);
      }
    }
  } catch {
    totals.failed += 1;
    failures.push(`${project}: no report (the run did not finish)`);
  }
}

async function pythonUnitTests() {
  step("Tests: the container's Python (unittest)");
  const result = await pythonTests(env);
  totals.passed += result.passed;
  totals.failed += result.failed;
  totals.skipped += result.skipped;
  for (const name of result.failedTests) failedTests.push(`sandbox/tests > ${name}`);
  if (!result.finished) failures.push("Python unittest: the run did not finish");
}

/** The end of the IDE's own log (workerd, the Worker, the container engine): what a failed test met. */
function printTail(file, lines) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return;
  }
  const tail = text.trimEnd().split("\n").slice(-lines);
  console.log(`\n\x1b[2m── the last ${tail.length} lines of the server's log (${file}) ──\x1b[0m`);
  console.log(tail.join("\n"));
}

if (wanted("static")) {
  await sh("Generating Worker types", "wrangler", ["types", "--strict-vars=false"]);
  await sh("Typecheck (app, worker, tests)", "tsc", ["-b"]);
  await sh("Lint and format check (biome)", "biome", ["ci", "."]);
  await sh("No import cycles (madge)", "node", ["scripts/check-cycles.mjs"]);
  await sh("Lint the container's Python (pyflakes3)", pyflakes, pythonFiles());
}
if (wanted("unit")) {
  const python = (filter) => filter.startsWith("sandbox");
  // Two files at a time on two cores (vitest's default is one fewer worker than cores): the unit tier is
  // pure logic, and its longest file (helper-script's races) no longer holds up the rest.
  if (fileFilters.length === 0 || !fileFilters.every(python)) await vitest("unit", { extraArgs: ["--maxWorkers=2"] });
  if (fileFilters.length === 0 || fileFilters.some(python)) await pythonUnitTests();
}
if (wanted("deploy")) {
  await sh("Production build", "vite", ["build"]);
  await sh("No test hook in the production bundle", "node", ["scripts/check-bundle.mjs"]);
  await sh("PREVIEW_DOMAIN apart from the IDE's site", "node", ["scripts/check-preview-domain.mjs"]);
  await sh("wrangler deploy --dry-run", "wrangler", ["deploy", "--dry-run"]);
}
// Beside the integration tier (each an IDE of its own: its own ports, worker name and state), first the
// frameworks matrix (real generators from the npm registry, each app previewed in Chromium), then the browser
// tier. On the 2-core machine the integration tier alone leaves about 60% of the CPU idle (it waits on
// containers and timers) and the browser tier about 35%; the matrix with the integration tier leaves about 12%,
// so the browser tier starts when the matrix is done, not beside both.
const beside = wanted("integration");
const frameworks = wanted("frameworks") ? vitest("frameworks", { beside }) : undefined;
const e2e = wanted("e2e") && beside ? Promise.resolve(frameworks).then(() => vitest("e2e", { beside })) : undefined;
if (wanted("integration")) await vitest("integration");
// The soak's short form (issue 45): two workspaces in mixed use for two minutes, an IDE of its own; any
// error, or anything left once its workspaces are deleted, fails the run. `npm run bench -- soak` is the long one.
if (tiers.includes("soak") || (tiers.length === 0 && fileFilters.length === 0)) {
  await sh("Soak: 2 workspaces in mixed use for 2 minutes", "node", ["scripts/bench.mjs", "soak"], {
    extraEnv: { SOAK_WORKSPACES: "2", SOAK_MINUTES: "2", SOAK_CHECK: "1" },
  });
}
await Promise.all([frameworks, e2e]);
if (wanted("e2e") && !beside) await vitest("e2e");
// The production bundle as it deploys: `vite build` under plain `wrangler dev`, with real containers. Alone
// and last: it removes the containers and images it made when it ends.
if (wanted("deployed")) await vitest("deployed");

console.log("");
for (const test of failedTests) console.log(`\x1b[31m✗ ${test}\x1b[0m`);
for (const failure of failures) console.log(`\x1b[31m✗ ${failure}\x1b[0m`);
console.log(`${totals.passed} passed, ${totals.failed + failedChecks} failed, ${totals.skipped} skipped`);
process.exit(failures.length === 0 && totals.failed === 0 ? 0 : 1);
