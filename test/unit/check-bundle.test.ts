import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findTestHooks, missingFromBundle } from "../../scripts/check-bundle.mjs";

let dist: string;
afterEach(() => rmSync(dist, { recursive: true, force: true }));

/** A build as `vite build` lays it out: the Worker's folder with its wrangler.json, and the app in client/. */
function build({ worker = true, app = true } = {}): string {
  dist = join(mkdtempSync(join(tmpdir(), "bundle-")), "dist");
  mkdirSync(dist);
  if (worker) {
    mkdirSync(join(dist, "cloud_ide"));
    writeFileSync(join(dist, "cloud_ide/wrangler.json"), JSON.stringify({ main: "index.js" }));
    writeFileSync(join(dist, "cloud_ide/index.js"), "export default {};");
  }
  if (app) {
    mkdirSync(join(dist, "client/assets"), { recursive: true });
    writeFileSync(join(dist, "client/index.html"), "<!doctype html>");
    writeFileSync(join(dist, "client/assets/index.js"), "console.log(1);");
  }
  return dist;
}

describe("the production bundle check", () => {
  it("passes a whole build without test hooks", () => {
    expect(missingFromBundle(build())).toEqual([]);
    expect(findTestHooks(dist)).toEqual([]);
  });

  it("fails a missing or empty dist, and one without the Worker or the app", () => {
    dist = join(tmpdir(), `no-such-dist-${process.pid}`);
    expect(missingFromBundle(dist)).toEqual([expect.stringContaining("does not exist")]);
    expect(missingFromBundle(build({ worker: false, app: false }))).toHaveLength(2);
    expect(missingFromBundle(build({ worker: false }))).toEqual([expect.stringContaining("the Worker")]);
    expect(missingFromBundle(build({ app: false }))).toEqual([expect.stringContaining("the app")]);
    writeFileSync(join(build(), "cloud_ide/wrangler.json"), JSON.stringify({ main: "gone.js" }));
    expect(missingFromBundle(dist)).toEqual([expect.stringContaining("the Worker's script")]);
  });

  it("finds a test hook in the Worker", () => {
    writeFileSync(join(build(), "cloud_ide/index.js"), "const x = 'test-entry';");
    expect(findTestHooks(dist)).toEqual([expect.stringContaining("test-entry")]);
  });
});
