import { describe, expect, it } from "vitest";
import { MAX_JSON_BODY_BYTES } from "./body-limits";
import { AppError } from "./errors";
import { DRAIN_LIMIT_BYTES, drainBody, readJsonObject } from "./http";

/** A JSON request whose body arrives as a stream of unknown length (no Content-Length). */
let pulled = 0;

function streamed(text: string, headers: Record<string, string> = {}): Request {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(at, at + 64 * 1024));
      at += 64 * 1024;
      pulled = at;
    },
  });
  return new Request("https://ide.example.com/api/workspaces", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body,
    duplex: "half",
  } as RequestInit);
}

describe("reading a JSON body", () => {
  it("reads one within the limit", async () => {
    expect(await readJsonObject(streamed(JSON.stringify({ name: "x".repeat(1000) })))).toEqual({
      name: "x".repeat(1000),
    });
  });

  it("counts a body of unknown length as it arrives and refuses it past 1 MiB, without reading it all", async () => {
    const huge = JSON.stringify({ name: "x".repeat(20 * 1024 * 1024) });
    const request = streamed(huge);
    const error = await readJsonObject(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("PAYLOAD_TOO_LARGE");
    expect(MAX_JSON_BODY_BYTES).toBe(1024 * 1024);
    // At most twice the limit (and what one pull ahead brings) was read of the 20 MiB.
    expect(pulled).toBeLessThanOrEqual(2 * MAX_JSON_BODY_BYTES + 3 * 64 * 1024);
  });
});

describe("discarding a refused body", () => {
  // Under vite dev, a body the Worker answers without reading can fail the request (500 instead of 413).
  it("reads to its end a body just over the JSON limit, so the refusal is answered cleanly", async () => {
    const text = "x".repeat(MAX_JSON_BODY_BYTES + 10);
    const request = streamed(text, { "Content-Length": String(text.length) });
    await drainBody(request);
    expect(pulled).toBeGreaterThanOrEqual(text.length);
    expect(request.body?.locked).toBe(true);
  });

  it("does not read one larger than its limit, nor one of unknown size", async () => {
    const text = "x".repeat(DRAIN_LIMIT_BYTES + 1);
    await drainBody(streamed(text, { "Content-Length": String(text.length) }));
    expect(pulled).toBeLessThanOrEqual(2 * 64 * 1024);
    await drainBody(streamed(text));
    expect(pulled).toBeLessThanOrEqual(2 * 64 * 1024);
  });
});
