// The container's Python (sandbox/*.py, which the Worker loads with `?raw`):
// the files pyflakes3 lints, and Python's own unittest over sandbox/tests/,
// its results counted with the rest of `npm test`.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const ROOT = new URL("../../", import.meta.url).pathname;
const SANDBOX = join(ROOT, "sandbox");

/** @returns {string[]} every .py file of sandbox/ and sandbox/tests/ (the image's own folders hold none) */
export function pythonFiles() {
  const inFolder = (folder) =>
    readdirSync(join(SANDBOX, folder))
      .filter((name) => name.endsWith(".py"))
      .map((name) => join("sandbox", folder, name));
  return [...inFolder("."), ...inFolder("tests")].map((path) => path.replace("sandbox/./", "sandbox/")).sort();
}

/**
 * Counts in unittest's verbose output: its summary ("Ran N tests", then "OK",
 * "OK (skipped=S)" or "FAILED (failures=F, errors=E, skipped=S)") and the
 * names of failed tests ("FAIL: name (id)", "ERROR: name (id)").
 * @param {string} output
 */
export function parseUnittest(output) {
  const ran = output.match(/^Ran (\d+) tests? in /m);
  const verdict = output.match(/^(OK|FAILED)(?: \(([^)]*)\))?\s*$/m);
  const count = (name) => Number(verdict?.[2]?.match(new RegExp(`${name}=(\\d+)`))?.[1] ?? 0);
  const total = Number(ran?.[1] ?? 0);
  const failed = count("failures") + count("errors") + count("unexpected successes");
  const skipped = count("skipped") + count("expected failures");
  const failedTests = [...output.matchAll(/^(?:FAIL|ERROR): (\S+) \(([^)]*)\)/gm)].map((m) => `${m[2]}`);
  return { finished: Boolean(ran && verdict), passed: total - failed - skipped, failed, skipped, failedTests };
}

/**
 * Runs sandbox/tests/ with this machine's python3, its output shown as it comes.
 * @param {NodeJS.ProcessEnv} env
 */
export function pythonTests(env) {
  return new Promise((resolve) => {
    const child = spawn("python3", ["-m", "unittest", "discover", "-v", "-s", "sandbox/tests", "-t", "sandbox/tests"], {
      cwd: ROOT,
      env: { ...env, PYTHONDONTWRITEBYTECODE: "1" },
      stdio: ["ignore", "inherit", "pipe"],
    });
    let output = "";
    child.stderr.on("data", (chunk) => {
      output += chunk;
      process.stderr.write(chunk);
    });
    child.on("close", () => resolve(parseUnittest(output)));
    child.on("error", (error) => resolve({ ...parseUnittest(""), failedTests: [String(error.message)] }));
  });
}
