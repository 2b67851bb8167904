import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

describe("npm start without a Docker engine it can install", () => {
  it("stops with a message that says what to do", () => {
    // Only node on PATH: no docker, no dockerd, no apt-get.
    const result = spawnSync(process.execPath, [join(ROOT, "scripts/start.mjs")], {
      cwd: ROOT,
      env: { PATH: dirname(process.execPath), HOME: process.env.HOME ?? "/root" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("DOCKER_MISSING");
    expect(result.stderr).toMatch(/Install Docker .* run the command again/s);
  });
});
