// sandbox/backup-base.py's strip-end, run by the host's python3 as the
// backup script runs it: a tar stream in, the same stream without its
// end-of-archive blocks out, so a second tar stream can follow it.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const HELPER = join(import.meta.dirname, "../../sandbox/backup-base.py");
const work = mkdtempSync(join(tmpdir(), "strip-end-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * strip-end of `input`, written to its stdin in `piece`-byte writes (a pipe
 * hands it over in parts), `pauseMs` apart (then each read takes one write).
 */
function stripEnd(input: Uint8Array, piece = 48 * 1024, pauseMs = 0): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", [HELPER, "strip-end"], { stdio: ["pipe", "pipe", "inherit"] });
    const out: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`exit ${code}`))));
    void (async () => {
      for (let offset = 0; offset < input.byteLength; offset += piece) {
        if (!child.stdin.write(input.subarray(offset, offset + piece))) {
          await new Promise((drained) => child.stdin.once("drain", drained));
        }
        if (pauseMs) await new Promise((paused) => setTimeout(paused, pauseMs));
      }
      child.stdin.end();
    })();
  });
}

/** A pax tar of `dir`'s members in this order (as the backup lists them: files, then their folder). */
function tar(dir: string, members: string[]): Buffer {
  return execFileSync("tar", ["-C", dir, "--format=posix", "--no-recursion", "-cf", "-", ...members], {
    maxBuffer: 64 << 20,
  });
}

function listing(archive: Buffer): string[] {
  return execFileSync("tar", ["-t", "-f", "-"], { input: archive }).toString().trim().split("\n");
}

describe("strip-end", () => {
  it("cuts a tar stream's end so the next one is read as part of it", async () => {
    const first = join(work, "first");
    const second = join(work, "second");
    mkdirSync(join(first, "d"), { recursive: true });
    mkdirSync(second, { recursive: true });
    // Larger than a read of the pipe, ending in zeros: only the end-of-archive may go.
    const data = Buffer.concat([Buffer.alloc(300 * 1024, 7), Buffer.alloc(5000)]);
    writeFileSync(join(first, "d", "big.bin"), data);
    writeFileSync(join(second, "b.txt"), "second\n");
    const a = tar(first, ["d/big.bin", "d"]);
    const b = tar(second, ["b.txt"]);

    // Without the cut, tar stops at the first stream's end: the check below can fail.
    expect(listing(Buffer.concat([a, b]))).toEqual(["d/big.bin", "d/"]);
    const cut = await stripEnd(a);
    expect(cut.byteLength % 512).toBe(0);
    expect(cut.equals(a.subarray(0, cut.byteLength))).toBe(true);
    expect(a.subarray(cut.byteLength).every((byte) => byte === 0)).toBe(true);
    expect(listing(Buffer.concat([cut, b]))).toEqual(["d/big.bin", "d/", "b.txt"]);
    const unpacked = join(work, "unpacked");
    mkdirSync(unpacked);
    execFileSync("tar", ["-C", unpacked, "-x", "-f", "-"], { input: Buffer.concat([cut, b]) });
    expect(execFileSync("cmp", [join(first, "d", "big.bin"), join(unpacked, "d", "big.bin")]).byteLength).toBe(0);
  });

  it("keeps runs of zeros longer than a read, and drops only the trailing ones up to a block's end", async () => {
    const input = Buffer.concat([
      Buffer.alloc(700, 1),
      Buffer.alloc(3 * 1024 * 1024), // zeros across several reads, followed by data: all kept
      Buffer.from([9, 9, 9]),
      Buffer.alloc(20 * 1024), // the end-of-archive and padding
    ]);
    const out = await stripEnd(input, 10_000);
    const lastData = 700 + 3 * 1024 * 1024 + 3;
    expect(out.byteLength).toBe(Math.ceil(lastData / 512) * 512);
    expect(out.equals(input.subarray(0, out.byteLength))).toBe(true);
  });

  it("completes the last block when a read ended inside it and only zeros followed", async () => {
    const input = Buffer.concat([Buffer.alloc(1000, 5), Buffer.alloc(2000)]);
    const out = await stripEnd(input, 1000, 500);
    expect(out.byteLength).toBe(1024);
    expect(out.equals(input.subarray(0, 1024))).toBe(true);
  });

  it("gives nothing for nothing, and for zeros alone", async () => {
    expect((await stripEnd(new Uint8Array(0))).byteLength).toBe(0);
    expect((await stripEnd(new Uint8Array(10_240))).byteLength).toBe(0);
  });
});
