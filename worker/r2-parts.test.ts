import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstBytes, hashing, uploadInParts } from "./r2-parts";

/** workerd's crypto.DigestStream, for Node: a WritableStream whose `digest` settles when it closes. */
class NodeDigestStream extends WritableStream<Uint8Array> {
  readonly digest: Promise<ArrayBuffer>;
  constructor(algorithm: string) {
    const hash = createHash(algorithm.replace("-", "").toLowerCase());
    let settle: (value: ArrayBuffer) => void = () => {};
    super({
      write: (chunk) => void hash.update(chunk),
      close: () => {
        const bytes = hash.digest();
        settle(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      },
    });
    this.digest = new Promise((resolve) => {
      settle = resolve;
    });
  }
}

const hadDigestStream = "DigestStream" in crypto;
beforeAll(() => {
  if (!hadDigestStream) Object.assign(crypto, { DigestStream: NodeDigestStream });
});
afterAll(() => {
  if (!hadDigestStream) Reflect.deleteProperty(crypto, "DigestStream");
});

/** A multipart upload whose parts finish when the test says, recording what happened. */
function fakeBucket(failPart?: number) {
  const events: string[] = [];
  const pending: (() => void)[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const stored: Uint8Array[] = [];
  const upload = {
    uploadPart(number: number, body: Uint8Array) {
      const copy = body.slice();
      events.push(`start ${number}`);
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      return new Promise((resolve, reject) => {
        pending.push(() => {
          inFlight--;
          events.push(`end ${number}`);
          if (number === failPart) return reject(new Error(`part ${number} refused`));
          stored[number - 1] = copy;
          resolve({ partNumber: number, etag: `e${number}` });
        });
      });
    },
    async complete(parts: { partNumber: number; etag: string }[]) {
      events.push(`complete ${parts.map((p) => p.partNumber).join(",")}`);
    },
    async abort() {
      events.push("abort");
    },
  };
  const bucket = { createMultipartUpload: async () => upload } as unknown as R2Bucket;
  /** Finishes every part upload started so far, as they come, until `done` settles. */
  const drive = async (done: Promise<unknown>) => {
    let settled = false;
    const settle = () => {
      settled = true;
    };
    done.then(settle, settle);
    while (!settled) {
      pending.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  };
  return { bucket, events, stored, drive, mostInFlight: () => mostInFlight };
}

/** A stream of `sizes` chunks that reads one only when asked (each ask logged in `events`). */
function chunks(sizes: number[], events: string[] = []): { stream: ReadableStream<Uint8Array>; bytes: Uint8Array } {
  const total = sizes.reduce((a, b) => a + b, 0);
  const bytes = new Uint8Array(total).map((_, i) => (i * 31) % 251);
  let offset = 0;
  let read = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const size = sizes.shift();
        if (size === undefined) return controller.close();
        events.push(`read ${++read}`);
        controller.enqueue(bytes.slice(offset, offset + size));
        offset += size;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, bytes };
}

const concat = (parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((part) => [...part]));

describe("uploading in parts", () => {
  it("with one part uploading at a time, fills the next meanwhile, in order, with the SHA-256 of every byte", async () => {
    const fake = fakeBucket();
    const { stream, bytes } = chunks([7, 10, 3, 20, 1]);
    const done = uploadInParts(fake.bucket, "k", stream, async () => {}, { partSize: 8, uploading: 1 });
    await fake.drive(done);
    const uploaded = await done;
    expect(uploaded).toEqual({ size: 41, sha256: createHash("sha256").update(bytes).digest("hex") });
    expect(fake.mostInFlight()).toBe(1);
    expect(fake.events.at(-1)).toBe("complete 1,2,3,4,5,6");
    // Part 2 starts only once part 1 is done, yet part 2 filled while part 1 uploaded.
    expect(fake.events.indexOf("end 1")).toBeLessThan(fake.events.indexOf("start 2"));
    expect(fake.stored.map((part) => part.length)).toEqual([8, 8, 8, 8, 8, 1]);
    expect(concat(fake.stored)).toEqual(bytes);
  });

  it("reads on while a part uploads (the producer is not held up by R2)", async () => {
    const fake = fakeBucket();
    const { stream } = chunks([8, 8, 8], fake.events);
    const done = uploadInParts(fake.bucket, "k", stream, async () => {}, { partSize: 8, uploading: 1 });
    await fake.drive(done);
    await done;
    expect(fake.events.slice(0, 4)).toEqual(["read 1", "start 1", "read 2", "end 1"]);
  });

  it("keeps up to `uploading` parts in flight and no more, then waits for the oldest", async () => {
    const fake = fakeBucket();
    const { stream, bytes } = chunks([8, 8, 8, 8, 8, 8, 3], fake.events);
    const done = uploadInParts(fake.bucket, "k", stream, async () => {}, { partSize: 8, uploading: 3 });
    await fake.drive(done);
    expect(await done).toEqual({ size: 51, sha256: createHash("sha256").update(bytes).digest("hex") });
    expect(fake.mostInFlight()).toBe(3);
    // Three start before any ends; the fourth only once the first is done.
    expect(fake.events.slice(0, 6)).toEqual(["read 1", "start 1", "read 2", "start 2", "read 3", "start 3"]);
    expect(fake.events.indexOf("end 1")).toBeLessThan(fake.events.indexOf("start 4"));
    expect(fake.events.at(-1)).toBe("complete 1,2,3,4,5,6,7");
    expect(concat(fake.stored)).toEqual(bytes);
  });

  it("reads a byte stream (the exec's stdout) straight into the parts, the same bytes and SHA-256", async () => {
    const fake = fakeBucket();
    const sizes = [5, 9, 2, 16, 3];
    const bytes = new Uint8Array(35).map((_, i) => (i * 7) % 253);
    let offset = 0;
    const stream = new ReadableStream(
      {
        type: "bytes",
        pull(controller) {
          const size = sizes.shift();
          if (size === undefined) {
            controller.close();
            // A byte source ends a pending BYOB read itself (a byte stream's rule).
            controller.byobRequest?.respond(0);
            return;
          }
          controller.enqueue(bytes.slice(offset, offset + size));
          offset += size;
        },
      },
      { highWaterMark: 0 },
    ) as ReadableStream<Uint8Array>;
    const done = uploadInParts(fake.bucket, "k", stream, async () => {}, { partSize: 8 });
    await fake.drive(done);
    expect(await done).toEqual({ size: 35, sha256: createHash("sha256").update(bytes).digest("hex") });
    expect(fake.stored.map((part) => part.length)).toEqual([8, 8, 8, 8, 3]);
    expect(concat(fake.stored)).toEqual(bytes);
  });

  it("aborts (never completes) when a part is refused or the producer failed", async () => {
    const refused = fakeBucket(2);
    const first = uploadInParts(refused.bucket, "k", chunks([8, 8, 8, 8]).stream, async () => {}, { partSize: 8 });
    await refused.drive(first);
    await expect(first).rejects.toThrow("part 2 refused");
    expect(refused.events).toContain("abort");
    expect(refused.events.some((event) => event.startsWith("complete"))).toBe(false);

    const broken = fakeBucket();
    const second = uploadInParts(
      broken.bucket,
      "k",
      chunks([8, 3]).stream,
      async () => {
        throw new Error("tar exited with 2");
      },
      { partSize: 8 },
    );
    await broken.drive(second);
    await expect(second).rejects.toThrow("tar exited with 2");
    expect(broken.events.at(-1)).toBe("abort");
  });
});

describe("hashing a backup on its way to the container", () => {
  it("passes every byte on, in order, and gives its size and SHA-256 (a byte stream and any other)", async () => {
    const bytes = new Uint8Array(3000).map((_, i) => (i * 13) % 241);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const byteStream = () => {
      let offset = 0;
      return new ReadableStream({
        type: "bytes",
        pull(controller) {
          if (offset >= bytes.length) {
            controller.close();
            controller.byobRequest?.respond(0);
            return;
          }
          controller.enqueue(bytes.slice(offset, offset + 700));
          offset += 700;
        },
      }) as ReadableStream<Uint8Array>;
    };
    const plain = chunks([1000, 1000, 1000]);
    const plainSha256 = createHash("sha256").update(plain.bytes).digest("hex");
    for (const [source, expected, hash] of [
      [byteStream(), bytes, sha256],
      [plain.stream, plain.bytes, plainSha256],
    ] as const) {
      const hashed = hashing(source);
      const passed = new Uint8Array(await new Response(hashed.stream).arrayBuffer());
      expect(passed).toEqual(expected);
      expect(await hashed.result()).toEqual({ size: 3000, sha256: hash });
    }
  });
});

describe("the first bytes of a backup, for a wake that skips the rest", () => {
  it("gives exactly `count` bytes, cutting a chunk; draining the rest completes the whole stream's hash", async () => {
    const source = chunks([1000, 1000, 1000]);
    const hashed = hashing(source.stream);
    const { head, rest } = firstBytes(hashed.stream, 1500);
    const got = new Uint8Array(await new Response(head).arrayBuffer());
    expect(got).toEqual(source.bytes.subarray(0, 1500));
    await rest.drain();
    expect(await hashed.result()).toEqual({
      size: 3000,
      sha256: createHash("sha256").update(source.bytes).digest("hex"),
    });
  });

  it("drains the rest only once the head was taken, when drain() is called first", async () => {
    const source = chunks([1000, 1000, 1000]);
    const hashed = hashing(source.stream);
    const { head, rest } = firstBytes(hashed.stream, 1500);
    const drained = rest.drain();
    await new Promise((resolve) => setTimeout(resolve, 10)); // the drain had its chance to read first
    const got = new Uint8Array(await new Response(head).arrayBuffer());
    expect(got).toEqual(source.bytes.subarray(0, 1500));
    await drained;
    expect(await hashed.result()).toEqual({
      size: 3000,
      sha256: createHash("sha256").update(source.bytes).digest("hex"),
    });
    // A drain waiting for a head nobody takes ends with the cancel.
    const untaken = firstBytes(chunks([1000]).stream, 500);
    const waiting = untaken.rest.drain();
    await untaken.rest.cancel();
    await expect(waiting).resolves.toBeUndefined();
  });

  it("ends the head at a chunk's end, and at the source's end when it is shorter", async () => {
    const exact = chunks([1000, 1000]);
    const first = firstBytes(exact.stream, 1000);
    expect((await new Response(first.head).arrayBuffer()).byteLength).toBe(1000);
    await first.rest.drain();
    const short = chunks([100]);
    const second = firstBytes(short.stream, 1000);
    expect((await new Response(second.head).arrayBuffer()).byteLength).toBe(100);
    await second.rest.drain();
  });

  it("cancels the source when the rest is cancelled", async () => {
    let cancelled = false;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(10));
      },
      cancel() {
        cancelled = true;
      },
    });
    const { rest } = firstBytes(source, 5);
    await rest.cancel();
    expect(cancelled).toBe(true);
  });
});
