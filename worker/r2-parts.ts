/**
 * Streams bytes into one R2 object through a multipart upload, in parts of
 * one fixed size (R2 wants every part but the last the same size), hashing
 * them with SHA-256 on the way. A few parts upload while the next fills, so
 * `tar | zstd` keeps producing during an upload; nothing more is held.
 */

/**
 * 5 MiB, R2's least part size: an object can be ~48.8 GiB (10,000 parts),
 * more than a workspace's disk holds. Small parts spread the R2 work over
 * the archive: with 16 MiB ones a template workspace's first part (of 17 MB)
 * went up just before the archive's end, and locally, where R2 runs on the
 * same thread, held up reading its last bytes by up to ~370 ms.
 */
export const PART_SIZE = 5 * 1024 * 1024;

/**
 * Parts uploading at once while the next fills: R2 answers a part after a
 * round trip, so one at a time would hold small parts' throughput to one
 * part per round trip. At most (this + 1) parts are held: 20 MiB.
 */
export const PARTS_UPLOADING = 3;

export interface Uploaded {
  size: number;
  /** Hex SHA-256 of every byte uploaded. */
  sha256: string;
}

export interface UploadOptions {
  partSize?: number;
  uploading?: number;
  /**
   * Called once the multipart upload exists, before any part: a caller that
   * records it can abort it later if this process ends before it does (a
   * restarted Worker never runs the abort below).
   */
  begun?: (upload: R2MultipartUpload) => Promise<void>;
}

/**
 * Uploads `stream` as `key`. `finished` is awaited after the stream ended and
 * before the upload is completed: a producer that failed (tar exited non-zero)
 * rejects it, and the upload is aborted, so no partial object is ever stored.
 */
export async function uploadInParts(
  bucket: R2Bucket,
  key: string,
  stream: ReadableStream<Uint8Array>,
  finished: () => Promise<void>,
  { partSize = PART_SIZE, uploading = PARTS_UPLOADING, begun }: UploadOptions = {},
): Promise<Uploaded> {
  let upload: R2MultipartUpload;
  try {
    upload = await bucket.createMultipartUpload(key, { httpMetadata: { contentType: "application/zstd" } });
  } catch (error) {
    await stream.cancel().catch(() => {});
    throw error;
  }
  try {
    await begun?.(upload);
  } catch (error) {
    await upload.abort().catch(() => {});
    await stream.cancel().catch(() => {});
    throw error;
  }
  const digest = new crypto.DigestStream("SHA-256");
  const hasher = digest.getWriter();
  /** Each part's upload; at most `uploading` run at a time (with the part filling, all that is held). */
  const parts: Promise<R2UploadedPart>[] = [];
  let part = new Uint8Array(partSize);
  let filled = 0;
  let size = 0;
  const flush = async () => {
    const body = part.subarray(0, filled);
    // Hashed a part at a time, not a read at a time: a read is often a few KB,
    // and each write to the digest is a trip through the runtime's stream machinery.
    await hasher.write(body);
    // Every part before this one was awaited by an earlier flush: after it, fewer than `uploading` run.
    await parts[parts.length - uploading];
    const started = upload.uploadPart(parts.length + 1, body);
    // Awaited by a later flush or at the end; a failure must not go unhandled in between.
    started.catch(() => {});
    parts.push(started);
    part = new Uint8Array(partSize);
    filled = 0;
  };
  const byob = byobReader(stream);
  const reader = byob ?? stream.getReader();
  try {
    if (byob) {
      // A byte stream (the exec's stdout) is read straight into the part, a
      // MiB or more a time: no copy, and far fewer trips than its few-KB chunks.
      for (;;) {
        const view = new Uint8Array(part.buffer, filled, partSize - filled);
        const { done, value } = await readAtLeast(byob, MIN_READ, view);
        if (value) {
          // The read moved the buffer into `value`: the part lives on there.
          part = new Uint8Array(value.buffer as ArrayBuffer, 0, partSize);
          filled += value.byteLength;
          size += value.byteLength;
        }
        if (filled === partSize) await flush();
        if (done) break;
      }
    } else {
      const chunks = reader as ReadableStreamDefaultReader<Uint8Array>;
      for (;;) {
        const { done, value } = await chunks.read();
        if (done) break;
        size += value.byteLength;
        let offset = 0;
        while (offset < value.byteLength) {
          const take = Math.min(partSize - filled, value.byteLength - offset);
          part.set(value.subarray(offset, offset + take), filled);
          filled += take;
          offset += take;
          if (filled === partSize) await flush();
        }
      }
    }
    await finished();
    if (filled > 0 || parts.length === 0) await flush();
    const uploaded = await Promise.all(parts);
    await hasher.close();
    const sha256 = toHex(await digest.digest);
    await upload.complete(uploaded);
    return { size, sha256 };
  } catch (error) {
    // Whatever the producer still writes has nowhere to go: cancel, so it ends (tar gets EPIPE).
    await reader.cancel().catch(() => {});
    await Promise.allSettled(parts);
    await upload.abort().catch(() => {});
    await hasher.abort().catch(() => {});
    throw error;
  }
}

/** The least a read of a byte stream waits for (less at its end). */
const MIN_READ = 1024 * 1024;

/** A BYOB reader when `stream` is a byte stream; undefined for any other. */
function byobReader(stream: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | undefined {
  try {
    return stream.getReader({ mode: "byob" });
  } catch {
    return undefined;
  }
}

/** workerd's `readAtLeast` (fills `view` with at least `min` bytes unless the stream ends); elsewhere a plain BYOB read. */
function readAtLeast(
  reader: ReadableStreamBYOBReader,
  min: number,
  view: Uint8Array,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  return typeof reader.readAtLeast === "function"
    ? reader.readAtLeast(Math.min(min, view.byteLength), view)
    : reader.read(view);
}

/**
 * `source`'s bytes, hashed and counted on the way through: `result()` settles
 * once the stream has ended (or rejects if it was cut short). A byte stream
 * (an R2 object's body) is passed on in pieces of a MiB or more (its own are a
 * few KB: each one a trip through the digest and the container's stdin).
 */
export function hashing(source: ReadableStream<Uint8Array>): {
  stream: ReadableStream<Uint8Array>;
  result: () => Promise<Uploaded>;
} {
  const digest = new crypto.DigestStream("SHA-256");
  const hasher = digest.getWriter();
  let size = 0;
  let ended: (value: Uploaded) => void = () => {};
  let failed: (error: unknown) => void = () => {};
  const done = new Promise<Uploaded>((resolve, reject) => {
    ended = resolve;
    failed = reject;
  });
  done.catch(() => {});
  const take = async (chunk: Uint8Array) => {
    await hasher.write(chunk);
    size += chunk.byteLength;
  };
  const end = async () => {
    await hasher.close();
    ended({ size, sha256: toHex(await digest.digest) });
  };
  const byob = byobReader(source);
  if (!byob) {
    const through = new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        await take(chunk);
        controller.enqueue(chunk);
      },
      flush: end,
      cancel(reason) {
        failed(reason);
      },
    });
    return { stream: source.pipeThrough(through), result: () => done };
  }
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done: last, value } = await readAtLeast(byob, MIN_READ, new Uint8Array(MIN_READ));
          if (value && value.byteLength > 0) {
            await take(value);
            controller.enqueue(value);
          }
          if (last) {
            await end();
            controller.close();
          }
        } catch (error) {
          failed(error);
          throw error;
        }
      },
      async cancel(reason) {
        failed(reason);
        await byob.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, result: () => done };
}

export function toHex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The first `count` bytes of `source` as a stream of their own (`head`); the
 * rest is read and dropped by `rest.drain()` (so that a hash of the whole
 * stream completes), or `rest.cancel()` ends it all. `drain()` may be called
 * at once: it starts reading when the head has been taken (or cancelled), so
 * the rest is read while the head's reader is still at work on it.
 */
export function firstBytes(
  source: ReadableStream<Uint8Array>,
  count: number,
): { head: ReadableStream<Uint8Array>; rest: { drain: () => Promise<void>; cancel: () => Promise<void> } } {
  const reader = source.getReader();
  let left = count;
  let headTaken = () => {};
  const headEnded = new Promise<void>((resolve) => {
    headTaken = resolve;
  });
  const head = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (left <= 0) {
        controller.close();
        headTaken();
        return;
      }
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        headTaken();
        return;
      }
      const part = value.byteLength > left ? value.subarray(0, left) : value;
      left -= part.byteLength;
      controller.enqueue(part);
      if (left <= 0) {
        controller.close();
        headTaken();
      }
    },
    cancel(reason) {
      headTaken();
      return reader.cancel(reason);
    },
  });
  return {
    head,
    rest: {
      drain: async () => {
        await headEnded;
        while (!(await reader.read()).done) {
          // Dropped: only its hash matters.
        }
      },
      cancel: () => {
        headTaken();
        return reader.cancel();
      },
    },
  };
}

/** Deletes every object under `prefix`, a listed page at a time (a workspace's backups, its save journal). */
export async function deleteUnderPrefix(bucket: R2Bucket, prefix: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
    if (listed.objects.length > 0) await bucket.delete(listed.objects.map((object) => object.key));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
}
