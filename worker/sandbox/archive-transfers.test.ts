import { describe, expect, it } from "vitest";
import { ARCHIVE_HOST, ArchiveTransfers } from "./archive-transfers";

function bytes(...values: number[]): ReadableStream<Uint8Array> {
  return new Response(new Uint8Array(values)).body as ReadableStream<Uint8Array>;
}

function token(url: string): string {
  const parsed = new URL(url);
  expect(parsed.host).toBe(ARCHIVE_HOST);
  return parsed.pathname.slice(1);
}

describe("ArchiveTransfers", () => {
  it("hands an upload's body over once, and answers its request when told", async () => {
    const transfers = new ArchiveTransfers();
    const upload = transfers.expectUpload();
    const answered = transfers.receive(token(upload.url), bytes(1, 2, 3));
    const body = await upload.body;
    expect([...new Uint8Array(await new Response(body).arrayBuffer())]).toEqual([1, 2, 3]);
    upload.answer({ ok: true });
    expect(await answered).toEqual({ ok: true });
    // Taken: the same token again is refused.
    expect(await transfers.receive(token(upload.url), bytes(4))).toMatchObject({ ok: false });
  });

  it("refuses unknown tokens, a download's token for an upload, and a closed upload", async () => {
    const transfers = new ArchiveTransfers();
    expect(await transfers.receive("0".repeat(32), bytes(1))).toMatchObject({ ok: false });
    const download = transfers.offerDownload(bytes(1));
    expect(await transfers.receive(token(download.url), bytes(1))).toMatchObject({ ok: false });
    const upload = transfers.expectUpload();
    upload.close();
    expect(await transfers.receive(token(upload.url), bytes(1))).toMatchObject({ ok: false });
  });

  it("gives a download's stream once, and says whether it was taken", async () => {
    const transfers = new ArchiveTransfers();
    const download = transfers.offerDownload(bytes(7));
    expect(download.wasTaken).toBe(false);
    expect(transfers.send("0".repeat(32))).toBeUndefined();
    const stream = transfers.send(token(download.url));
    expect(stream).toBeDefined();
    expect(download.wasTaken).toBe(true);
    await download.taken;
    expect(transfers.send(token(download.url))).toBeUndefined();
    const other = transfers.offerDownload(bytes(8));
    other.close();
    expect(transfers.send(token(other.url))).toBeUndefined();
    expect(other.wasTaken).toBe(false);
  });

  it("gives every transfer its own token", () => {
    const transfers = new ArchiveTransfers();
    const urls = new Set(Array.from({ length: 50 }, () => transfers.expectUpload().url));
    expect(urls.size).toBe(50);
  });
});
