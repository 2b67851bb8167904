import { randomBytes } from "node:crypto";
import http from "node:http";
import { afterAll, describe, expect, inject, it } from "vitest";
import { filesUrl, putFile, readHash, sha256 } from "../support/files";
import { removeWhatWeMade, sh, waitFor, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi, ownerCookie } from "../support/session";

/**
 * Issue 45's matrix, the browser's connection dropped: a save and an upload
 * chunk whose connection goes away halfway through the body, as a laptop's
 * Wi-Fi does. The file keeps its old bytes, nothing half-written is left
 * beside it, and the next request (the chunk sent again) works.
 */

afterAll(removeWhatWeMade);

const MB = 1024 * 1024;

/**
 * A PUT of `total` bytes whose connection is destroyed once `sent` of them
 * went out and the server had a second to take them in: a dropped
 * connection, not a request that ended early.
 */
async function droppedPut(path: string, total: number, sent: Uint8Array): Promise<void> {
  const url = new URL(path, inject("baseUrl"));
  const request = http.request(url, {
    method: "PUT",
    headers: {
      Cookie: await ownerCookie(),
      Origin: inject("baseUrl"),
      "Content-Type": "application/octet-stream",
      "Content-Length": String(total),
    },
  });
  const ended = new Promise<string>((resolve) => {
    request.on("response", (response) => resolve(`answered ${response.statusCode}`));
    request.on("error", (error) => resolve(`ended: ${error.message}`));
    request.on("close", () => resolve("closed"));
  });
  request.write(sent);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  request.destroy();
  // An answer before the body was whole would be a bug of its own: the server cannot know the content yet.
  expect(await ended).not.toMatch(/^answered 2/);
}

describe("the browser's connection dropped", () => {
  it("during a save: the file keeps its old bytes, nothing is left beside it, and the next save works", async () => {
    const id = await createWorkspace("dropped save", "empty");
    const { container } = await wake(id);
    const old = new Uint8Array(randomBytes(MB));
    expect((await putFile(id, "cut/notes.bin", old)).status).toBe(200);
    const next = new Uint8Array(randomBytes(8 * MB));

    await droppedPut(filesUrl(id, "/content", { path: "cut/notes.bin" }), next.byteLength, next.subarray(0, 4 * MB));

    // The save's temporary file goes once the container's side sees the body end.
    await waitFor("nothing left beside the file", () => sh(container, "ls -A /workspace/cut") === "notes.bin", 30_000);
    expect(await readHash(id, "cut/notes.bin")).toEqual({ status: 200, hash: sha256(old), size: old.byteLength });
    expect((await putFile(id, "cut/notes.bin", next)).status).toBe(200);
    expect(await readHash(id, "cut/notes.bin")).toEqual({ status: 200, hash: sha256(next), size: next.byteLength });
  });

  it("during an upload's chunk: the chunk sent again at its offset lands, and the file is whole", async () => {
    const id = await createWorkspace("dropped upload", "empty");
    const { container } = await wake(id);
    const old = new Uint8Array(randomBytes(MB));
    expect((await putFile(id, "up/big.bin", old)).status).toBe(200);
    const CHUNK = 4 * MB;
    const next = new Uint8Array(randomBytes(4 * CHUNK));
    const chunkUrl = (offset: number) =>
      filesUrl(id, "/upload", {
        path: "up/big.bin",
        upload: "droppedchunk1",
        offset: String(offset),
        ...(offset + CHUNK >= next.byteLength ? { final: "1" } : {}),
      });
    const send = (offset: number) =>
      ownerApi(chunkUrl(offset), { method: "PUT", body: next.subarray(offset, offset + CHUNK) });

    expect((await send(0)).status).toBe(200);
    // The second chunk's connection drops halfway.
    await droppedPut(chunkUrl(CHUNK), CHUNK, next.subarray(CHUNK, CHUNK + CHUNK / 2));
    // Until the upload ends, the file is the old one.
    expect(await readHash(id, "up/big.bin")).toEqual({ status: 200, hash: sha256(old), size: old.byteLength });

    // The page sends the chunk again at its offset, and goes on.
    for (let offset = CHUNK; offset < next.byteLength; offset += CHUNK) {
      const response = await send(offset);
      expect(response.status, `chunk at ${offset}: ${await response.text()}`).toBe(
        offset + CHUNK >= next.byteLength ? 201 : 200,
      );
    }
    expect(await readHash(id, "up/big.bin")).toEqual({ status: 200, hash: sha256(next), size: next.byteLength });
    expect(sh(container, "ls -A /workspace/up")).toBe("big.bin");
  });
});
