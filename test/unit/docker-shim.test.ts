import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const shim = new URL("../../scripts/local-engine/docker-shim.sh", import.meta.url).pathname;

/** Runs the shim in front of a `docker` that prints the arguments it was given. */
function throughShim(args: string[], env: Record<string, string> = {}): string[] {
  const dir = mkdtempSync(join(tmpdir(), "docker-shim-test-"));
  const fake = join(dir, "docker");
  writeFileSync(fake, '#!/bin/sh\nfor a; do printf "%s\\n" "$a"; done\n');
  chmodSync(fake, 0o755);
  const output = execFileSync("sh", [shim, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", CLOUD_IDE_REAL_DOCKER: fake, ...env },
  });
  return output.split("\n").filter(Boolean);
}

describe("the docker shim", () => {
  it("turns the vite plugin's listing by image into this dev server's containers, sidecars included", () => {
    const args = ["ps", "-a", "--filter", "ancestor=cloudflare-dev/sandbox:abc", "--format", "{{.ID}}"];
    expect(throughShim(args, { CLOUD_IDE_WORKER_NAME: "cloud-ide-test-1a2b3c" })).toEqual([
      "ps",
      "-a",
      "--filter",
      "name=^/workerd-cloud-ide-test-1a2b3c-[A-Z]",
      "--format",
      "{{.ID}}",
    ]);
  });

  it("leaves other listings alone", () => {
    const args = ["ps", "-aq", "--filter", "name=workerd-x-"];
    expect(throughShim(args, { CLOUD_IDE_WORKER_NAME: "x" })).toEqual(args);
  });

  it("drops the buildx-only flags from builds where there is no buildx, and only there", () => {
    const args = ["build", "--load", "-t", "tag", "--provenance=false", "-f", "-", "."];
    expect(throughShim(args, { CLOUD_IDE_DOCKER_NO_BUILDX: "1" })).toEqual(["build", "-t", "tag", "-f", "-", "."]);
    expect(throughShim(args)).toEqual(args);
  });
});
