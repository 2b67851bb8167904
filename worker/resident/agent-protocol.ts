/**
 * The resident agent's wire format (worker/resident/agent-script.ts speaks the
 * other side): length-prefixed frames, both ways, on one byte stream.
 *
 *   u32 length of the rest | u32 request id | u8 kind | u32 header length | JSON header | payload
 *
 * A request opens with OPEN ({op, args}); its content follows as DATA frames
 * of at most MAX_PAYLOAD bytes each, then END. The agent answers with HEAD
 * (a read's stat, once the file is open; a watch's "ready"), DATA, and one
 * final RESULT or ERROR ({code, detail}, a Linux error name). CANCEL ends a
 * request early. A stream's sender may have WINDOW bytes unacknowledged; the
 * receiver grants more with CREDIT ({n}) as its reader consumes them, so one
 * slow reader holds back only its own request. HELLO (id 0) says the agent is up.
 * A call's answer (a stat, a listing) is RESULT's header; one longer than
 * MAX_HEADER (a folder of many entries) comes as DATA, and RESULT then has no
 * header, so no frame ever grows with the answer.
 */
import { concatBytes } from "../bytes";
export const FrameKind = {
  OPEN: 1,
  DATA: 2,
  END: 3,
  CANCEL: 4,
  CREDIT: 5,
  HEAD: 6,
  RESULT: 7,
  ERROR: 8,
  HELLO: 9,
} as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

/** Bytes of one stream either side may send before the other grants more. */
export const WINDOW = 1 << 20;
/** The largest payload of one DATA frame; longer content goes as several. */
export const MAX_PAYLOAD = 256 * 1024;
/** The longest JSON header the agent sends; a longer answer goes as DATA. */
export const MAX_HEADER = 64 * 1024;
/** The version the agent's HELLO must carry. */
export const AGENT_VERSION = 4;
/** A frame longer than this is a broken stream, not a frame. */
const MAX_FRAME = MAX_PAYLOAD + (1 << 20);
const PREFIX = 13;

export interface Frame {
  id: number;
  kind: FrameKind;
  /** The JSON header, undefined when the frame has none. */
  header: unknown;
  payload: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeFrame(id: number, kind: FrameKind, header?: unknown, payload?: Uint8Array): Uint8Array {
  const head = header === undefined ? new Uint8Array(0) : encoder.encode(JSON.stringify(header));
  const body = payload ?? new Uint8Array(0);
  const frame = new Uint8Array(PREFIX + head.byteLength + body.byteLength);
  const view = new DataView(frame.buffer);
  view.setUint32(0, 9 + head.byteLength + body.byteLength);
  view.setUint32(4, id);
  view.setUint8(8, kind);
  view.setUint32(9, head.byteLength);
  frame.set(head, PREFIX);
  frame.set(body, PREFIX + head.byteLength);
  return frame;
}

/** One DATA frame whose payload is `parts` joined (`length` bytes in all): one copy, into the frame. */
export function encodeData(id: number, parts: Uint8Array[], length: number): Uint8Array {
  const frame = new Uint8Array(PREFIX + length);
  const view = new DataView(frame.buffer);
  view.setUint32(0, 9 + length);
  view.setUint32(4, id);
  view.setUint8(8, FrameKind.DATA);
  view.setUint32(9, 0);
  let offset = PREFIX;
  for (const part of parts) {
    frame.set(part, offset);
    offset += part.byteLength;
  }
  return frame;
}

/** Splits content into DATA payloads of at most MAX_PAYLOAD bytes (views, not copies). */
export function* payloads(chunk: Uint8Array, max = MAX_PAYLOAD): Generator<Uint8Array> {
  for (let offset = 0; offset < chunk.byteLength; offset += max) {
    yield chunk.subarray(offset, Math.min(offset + max, chunk.byteLength));
  }
}

/**
 * Turns a byte stream cut anywhere into whole frames. The pieces of a frame
 * that arrives in many reads (a 256 KiB DATA frame comes in 16-64 KiB reads)
 * are kept apart and joined once, when the frame is complete: joining them
 * at every read copied a large frame over and over.
 */
export class FrameDecoder {
  private buffer: Uint8Array = new Uint8Array(0);
  /** Reads that came after `buffer`, not yet joined to it: they do not complete its frame yet. */
  private parts: Uint8Array[] = [];
  private partsLength = 0;

  /** Feeds bytes; returns the frames they complete. Throws on a stream that is not frames. */
  push(chunk: Uint8Array): Frame[] {
    if (this.buffer.byteLength === 0) this.buffer = chunk;
    else {
      this.parts.push(chunk);
      this.partsLength += chunk.byteLength;
      const available = this.buffer.byteLength + this.partsLength;
      if (available < this.needed()) return [];
      this.buffer = concatBytes([this.buffer, ...this.parts]);
      this.parts = [];
      this.partsLength = 0;
    }
    const frames: Frame[] = [];
    let offset = 0;
    while (this.buffer.byteLength - offset >= PREFIX) {
      const view = new DataView(this.buffer.buffer, this.buffer.byteOffset + offset);
      const length = view.getUint32(0);
      const headerLength = view.getUint32(9);
      if (length < 9 || length > MAX_FRAME || headerLength > length - 9) {
        throw new Error(`not an agent frame (length ${length}, header ${headerLength})`);
      }
      if (this.buffer.byteLength - offset < 4 + length) break;
      const start = offset + PREFIX;
      const head = this.buffer.subarray(start, start + headerLength);
      const payload = this.buffer.subarray(start + headerLength, offset + 4 + length);
      frames.push({
        id: view.getUint32(4),
        kind: view.getUint8(8) as FrameKind,
        header: headerLength === 0 ? undefined : JSON.parse(decoder.decode(head)),
        // A view, not a copy (the reads are ours and nothing writes into them again), unless it is a small part
        // of a large read: a view keeps all of that read alive while it waits to be consumed.
        payload: payload.byteLength * 4 < this.buffer.buffer.byteLength ? payload.slice() : payload,
      });
      offset += 4 + length;
    }
    this.buffer = this.buffer.subarray(offset);
    return frames;
  }

  /** Bytes of an incomplete frame still waiting for the rest. */
  get pending(): number {
    return this.buffer.byteLength + this.partsLength;
  }

  /** Bytes the frame at the start of `buffer` needs (its prefix, when not all of that came yet). */
  private needed(): number {
    if (this.buffer.byteLength < 4) return PREFIX;
    const length = new DataView(this.buffer.buffer, this.buffer.byteOffset).getUint32(0);
    // Not a frame's length: the prefix is enough for push() to say so.
    if (length < 9 || length > MAX_FRAME) return PREFIX;
    return Math.max(PREFIX, 4 + length);
  }
}
