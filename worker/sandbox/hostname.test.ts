import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HOSTNAME_SCRIPT } from "./hostname";

const dir = mkdtempSync(join(tmpdir(), "hostname-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = (file: string) => execFileSync("sh", ["-c", HOSTNAME_SCRIPT, "sh", file]);

describe("the hostname step", () => {
  it("adds the container's hostname once to a hosts file that lacks it", () => {
    const file = join(dir, "lacking");
    writeFileSync(file, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
    run(file);
    run(file);
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines.filter((line) => line === `127.0.1.1\t${hostname()}`)).toHaveLength(1);
    expect(lines[0]).toBe("127.0.0.1\tlocalhost");
  });

  it("leaves a hosts file that lists it as it was", () => {
    const file = join(dir, "listing");
    const text = `127.0.0.1\tlocalhost\n172.17.0.5\t${hostname()}\n`;
    writeFileSync(file, text);
    run(file);
    expect(readFileSync(file, "utf8")).toBe(text);
  });
});
