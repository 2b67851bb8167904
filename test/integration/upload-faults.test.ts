import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { filesUrl, putFile, readHash, sha256 } from "../support/files";
import { kill, removeWhatWeMade, sh, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";

/**
 * A 100 MB upload cut by a killed container (issue 45's matrix). The part
 * that arrived lived in the container (`.NAME.upload-TOKEN`, never saved), so
 * it goes with it: the file keeps its old bytes, the next chunk is told the
 * upload is gone (the app then starts over: app/api/files.test.ts), and
 * starting over lands the whole file.
 */

const MB = 1024 * 1024;
const SIZE = 100 * MB;
const CHUNK = 8 * MB;
const TOKEN = "cutupload1";

/** One chunk of the upload; its status and, for a refusal, its error body. */
async function chunk(
  id: string,
  bytes: Uint8Array<ArrayBuffer>,
  offset: number,
): Promise<{ status: number; code?: string; message?: string }> {
  const end = Math.min(bytes.byteLength, offset + CHUNK);
  const query: Record<string, string> = { path: "big.bin", upload: TOKEN, offset: String(offset) };
  if (end === bytes.byteLength) query.final = "1";
  const response = await ownerApi(filesUrl(id, "/upload", query), {
    method: "PUT",
    body: bytes.subarray(offset, end),
    signal: AbortSignal.timeout(180_000),
  });
  const text = await response.text();
  if (response.ok) return { status: response.status };
  const body = JSON.parse(text) as { code?: string; message?: string };
  return { status: response.status, code: body.code, message: body.message };
}

afterAll(removeWhatWeMade);

describe("an upload cut by a fault", () => {
  it("a 100 MB upload cut by a killed container leaves the old file, says the upload is gone, and lands whole when sent again", async () => {
    const id = await createWorkspace("upload cut", "empty");
    const { container } = await wake(id);
    const old = new Uint8Array(randomBytes(MB));
    expect((await putFile(id, "big.bin", old)).status).toBe(200);
    const next = new Uint8Array(randomBytes(SIZE));

    let offset = 0;
    for (; offset < 5 * CHUNK; offset += CHUNK) expect((await chunk(id, next, offset)).status).toBe(200);
    // The sixth chunk is on its way when the container is killed: it ends, one way or the other, never hangs.
    const inFlight = chunk(id, next, offset);
    await new Promise((resolve) => setTimeout(resolve, 30));
    kill(container);
    const cut = await inFlight;
    if (cut.status === 200) offset += CHUNK;
    else expect(cut.code, JSON.stringify(cut)).toMatch(/^[A-Z_]+$/);

    // The next chunk wakes a new container, which has no part of the upload: it says so, and what to do.
    const gone = await chunk(id, next, offset);
    expect(gone).toMatchObject({
      status: 404,
      code: "UPLOAD_NOT_FOUND",
      message: expect.stringMatching(/upload the file again/),
    });
    // A new container keeps the old one's name (the Durable Object's id).
    const current = container;
    expect(await readHash(id, "big.bin")).toEqual({ status: 200, hash: sha256(old), size: old.byteLength });
    expect(sh(current, "find /workspace -name '.big.bin.upload-*' | wc -l")).toBe("0");

    // Sent again from the first byte, it lands whole.
    let final: { status: number } = { status: 0 };
    for (offset = 0; offset < SIZE; offset += CHUNK) {
      final = await chunk(id, next, offset);
      expect(final.status, `chunk at ${offset}`).toBe(offset + CHUNK >= SIZE ? 201 : 200);
    }
    expect(await readHash(id, "big.bin")).toEqual({ status: 200, hash: sha256(next), size: SIZE });
    expect(sh(current, "find /workspace -name '.big.bin.upload-*' | wc -l")).toBe("0");
  });
});
