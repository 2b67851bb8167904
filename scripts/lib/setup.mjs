// Everything `npm start` and `npm test` need before they can run: npm
// dependencies, a Docker engine, and the images this machine cannot pull.
import { existsSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ensureDevVars } from "./dev-vars.mjs";
import { ensureDockerEngine } from "./docker-engine.mjs";
import { ensureLocalImages } from "./local-images.mjs";
import { probe, run, SetupError, step } from "./run.mjs";

export const ROOT = new URL("../../", import.meta.url).pathname;
const BIN = join(ROOT, "node_modules/.bin");

/** @returns {Promise<NodeJS.ProcessEnv>} the environment to run vite / wrangler / vitest in */
export async function setup() {
  await ensureDependencies();
  step("Checking the Docker engine");
  await ensureDockerEngine();
  step("Checking container images");
  const imageEnv = await ensureLocalImages();
  ensureDevVars();
  return {
    ...process.env,
    ...imageEnv,
    // Node 24 from the `node` devDependency runs every tool (wrangler needs >= 22.12).
    PATH: `${BIN}${delimiter}${process.env.PATH ?? ""}`,
  };
}

function dependenciesCurrent() {
  const installed = join(ROOT, "node_modules/.package-lock.json");
  const lock = join(ROOT, "package-lock.json");
  if (!existsSync(installed) || !existsSync(join(BIN, "node"))) return false;
  return statSync(installed).mtimeMs >= statSync(lock).mtimeMs;
}

async function ensureDependencies() {
  if (dependenciesCurrent()) return;
  // `npm install`, not `npm ci`: a registry may lack a platform-specific
  // optional dependency (vite's Windows-only helper), which only `npm ci` rejects.
  step("Installing npm dependencies (npm install)");
  try {
    await run("npm", ["install", "--no-audit", "--no-fund"], { cwd: ROOT });
  } catch (error) {
    throw new SetupError("NPM_INSTALL_FAILED", `npm install failed; is the npm registry reachable?\n${error.message}`);
  }
}

/**
 * Debian's Chromium for the browser tests (`CHROMIUM_PATH` overrides).
 * @returns {Promise<string>} the executable
 */
export async function ensureChromium() {
  const configured = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (existsSync(configured)) return configured;
  await installDebianPackages(
    ["chromium"],
    "Chromium for the browser tests",
    new SetupError("CHROMIUM_MISSING", `No Chromium at ${configured}: install it or set CHROMIUM_PATH.`),
  );
  return configured;
}

/**
 * Debian's pyflakes3, the linter of the container's Python (sandbox/*.py).
 * @returns {Promise<string>} the executable
 */
export async function ensurePyflakes() {
  const executable = "/usr/bin/pyflakes3";
  if (!existsSync(executable)) {
    await installDebianPackages(
      ["pyflakes3"],
      "the linter of the container's Python",
      new SetupError("PYFLAKES_MISSING", `No ${executable}: install the Debian package pyflakes3.`),
    );
  }
  return executable;
}

/**
 * Debian's OpenSSH client and rsync for the ssh tests (the tunnel is tested
 * with the real ssh, scp and rsync through `cloud-ide tunnel`), when missing.
 */
export async function ensureSshClients() {
  const packages = [
    ["ssh", "openssh-client"],
    ["rsync", "rsync"],
  ]
    .filter(([command]) => !probe("sh", ["-c", `command -v ${command}`]).ok)
    .map(([, name]) => name);
  if (packages.length === 0) return;
  await installDebianPackages(
    packages,
    "the ssh tests' clients",
    new SetupError("SSH_CLIENTS_MISSING", `The ssh tests need ${packages.join(" and ")}: install them.`),
  );
}

/** Installs Debian packages as root (updating the package lists once if one is not found); not root: MISSING. */
async function installDebianPackages(names, what, missing) {
  if (process.getuid?.() !== 0) throw missing;
  step(`Installing ${what} (Debian packages ${names.join(", ")})`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  await run("apt-get", ["install", "-y", "--no-install-recommends", ...names], { env }).catch(async () => {
    await run("apt-get", ["update"], { show: false });
    await run("apt-get", ["install", "-y", "--no-install-recommends", ...names], { env });
  });
}

/** Prints a set-up failure for a person and exits. */
export function failSetup(error) {
  const code = error?.code ? `[${error.code}] ` : "";
  console.error(`\n\x1b[31m✗ ${code}${error?.message ?? error}\x1b[0m`);
  process.exit(1);
}
