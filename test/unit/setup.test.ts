import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

/**
 * A checkout whose npm dependencies are installed by set-up's own measure (a
 * hidden lock file no older than package-lock.json, node in node_modules/.bin),
 * holding the real scripts. The real checkout's dependencies may be out of date
 * (a rebase rewrites package-lock.json), and then set-up would run `npm install`
 * before it ever looks for Docker; here it goes straight to the engine check,
 * and nothing in the real checkout can be touched.
 */
function checkoutWithDependencies(): string {
  const root = mkdtempSync(join(tmpdir(), "setup-test-"));
  cpSync(join(ROOT, "scripts"), join(root, "scripts"), { recursive: true });
  writeFileSync(join(root, "package-lock.json"), "{}\n");
  mkdirSync(join(root, "node_modules/.bin"), { recursive: true });
  writeFileSync(join(root, "node_modules/.package-lock.json"), "{}\n");
  symlinkSync(process.execPath, join(root, "node_modules/.bin/node"));
  // The PATH the script gets: node and nothing else, wherever node is installed.
  mkdirSync(join(root, "bin"));
  symlinkSync(process.execPath, join(root, "bin/node"));
  const earlier = new Date(Date.now() - 60_000);
  utimesSync(join(root, "package-lock.json"), earlier, earlier);
  return root;
}

describe("npm start without a Docker engine it can install", () => {
  const root = checkoutWithDependencies();
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("stops with a message that says what to do", () => {
    // Only node on PATH: no docker, no dockerd, no apt-get, no npm.
    const result = spawnSync(process.execPath, [join(root, "scripts/start.mjs")], {
      cwd: root,
      env: { PATH: join(root, "bin"), HOME: process.env.HOME ?? "/root" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.stdout).not.toContain("Installing npm dependencies");
    expect(result.stdout).toContain("Checking the Docker engine");
    expect(result.stderr).toContain("DOCKER_MISSING");
    expect(result.stderr).toMatch(/Install Docker .* run the command again/s);
    expect(result.status).toBe(1);
  });
});
