import { afterEach, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../protocol/errors";
import { UPLOAD_CHUNK_BYTES } from "../../protocol/files";
import { FilesApi } from "./files";
import { ApiRequestError } from "./http";

/** An XMLHttpRequest whose answers come from `answer(query)`, each request's query noted. */
function fakeXhr(answer: (query: URLSearchParams) => { status: number; body?: unknown }) {
  const sent: URLSearchParams[] = [];
  class FakeXhr {
    status = 0;
    responseText = "";
    upload = { onprogress: undefined as ((event: { loaded: number }) => void) | undefined };
    onload: (() => void) | undefined;
    onerror: (() => void) | undefined;
    onabort: (() => void) | undefined;
    private url = "";
    open(_method: string, url: string) {
      this.url = url;
    }
    send() {
      const query = new URL(this.url, "http://ide.test").searchParams;
      sent.push(query);
      const { status, body } = answer(query);
      this.status = status;
      this.responseText = body === undefined ? "" : JSON.stringify(body);
      queueMicrotask(() => this.onload?.());
    }
    abort() {}
  }
  vi.stubGlobal("XMLHttpRequest", FakeXhr);
  // The clean-up's DELETE of an upload that failed.
  vi.stubGlobal(
    "fetch",
    vi.fn(async () => new Response(null, { status: 204 })),
  );
  return sent;
}

const lost = { status: 404, body: { code: ErrorCode.UPLOAD_NOT_FOUND, message: "No upload in progress" } };

afterEach(() => vi.unstubAllGlobals());

describe("an upload whose part went with its container", () => {
  const file = new Blob([new Uint8Array(2 * UPLOAD_CHUNK_BYTES + 5)]);

  it("starts over from the first byte and finishes", async () => {
    let lostOnce = false;
    const sent = fakeXhr((query) => {
      if (query.get("offset") === String(UPLOAD_CHUNK_BYTES) && !lostOnce) {
        lostOnce = true;
        return lost;
      }
      return { status: query.get("final") ? 201 : 200, body: {} };
    });
    const progress: number[] = [];
    await new FilesApi("w1").upload("big.bin", file, (bytes) => progress.push(bytes));
    expect(sent.map((query) => `${query.get("offset")}${query.get("final") ? " final" : ""}`)).toEqual([
      "0",
      String(UPLOAD_CHUNK_BYTES),
      "0",
      String(UPLOAD_CHUNK_BYTES),
      `${2 * UPLOAD_CHUNK_BYTES} final`,
    ]);
    expect(progress).toContain(0);
    expect(progress.at(-1)).toBe(file.size);
  });

  it("gives up with the server's error after starting over twice", async () => {
    const sent = fakeXhr((query) => (query.get("offset") === "0" ? { status: 200, body: {} } : lost));
    const failure = await new FilesApi("w1").upload("big.bin", file, () => {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiRequestError);
    expect((failure as ApiRequestError).code).toBe(ErrorCode.UPLOAD_NOT_FOUND);
    expect(sent.filter((query) => query.get("offset") === "0")).toHaveLength(3);
  });

  it("does not start over for other refusals", async () => {
    const sent = fakeXhr((query) =>
      query.get("offset") === "0"
        ? { status: 200, body: {} }
        : { status: 507, body: { code: ErrorCode.NO_SPACE, message: "The workspace disk is full" } },
    );
    const failure = await new FilesApi("w1").upload("big.bin", file, () => {}).catch((error: unknown) => error);
    expect((failure as ApiRequestError).code).toBe(ErrorCode.NO_SPACE);
    expect(sent).toHaveLength(2);
  });
});
