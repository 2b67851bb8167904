import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "preview-domain-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the deploy check on a wrangler config with these routes and PREVIEW_DOMAIN. */
function check(ideHost: string, previewDomain: string) {
  const config = join(dir, `${ideHost}-${previewDomain}.jsonc`);
  writeFileSync(
    config,
    `{
      // as in the README's deploy steps
      "name": "cloud-ide", "main": "${join(process.cwd(), "worker/index.ts")}", "compatibility_date": "2025-01-01",
      "routes": [
        { "pattern": "${ideHost}", "custom_domain": true },
        { "pattern": "*.${previewDomain}/*", "zone_name": "${previewDomain}" }
      ],
      "vars": { "PREVIEW_DOMAIN": "${previewDomain}" }
    }`,
  );
  return spawnSync(process.execPath, ["scripts/check-preview-domain.mjs", config], { encoding: "utf8" });
}

describe("the deploy check of PREVIEW_DOMAIN", () => {
  it("refuses previews on the IDE's own site, saying why", () => {
    const run = check("ide.example.com", "previews.example.com");
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/same site \(example\.com\).*session cookie/);
  });

  it("passes previews on a domain of their own", () => {
    const run = check("ide.example.com", "example-previews.com");
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });
}, 60_000);
