/**
 * The framing of language servers' stdio: each JSON-RPC message is a header
 * block (`Content-Length: N`, optionally `Content-Type`, CRLF line ends, a
 * blank line) and then N bytes of UTF-8 JSON. The browser side has none of
 * this: a WebSocket text frame is one message.
 */

const encoder = new TextEncoder();
const HEADER_END = [13, 10, 13, 10]; // \r\n\r\n
/** A header block longer than this is junk on stdout, not a header: it is dropped. */
const MAX_HEADER_BYTES = 8 * 1024;

/** One message as it goes to a server's stdin. */
export function encodeMessage(json: string): Uint8Array {
  const body = encoder.encode(json);
  const header = encoder.encode(`Content-Length: ${body.byteLength}\r\n\r\n`);
  const framed = new Uint8Array(header.byteLength + body.byteLength);
  framed.set(header);
  framed.set(body, header.byteLength);
  return framed;
}

/**
 * Splits a server's stdout into message bodies, however the bytes are cut
 * into chunks. A header block without a usable Content-Length (a stray line
 * a server printed) is reported to `onMalformed` and skipped: the reader
 * picks up again at the next header.
 */
export class ContentLengthReader {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  /** The body length of the header just read, while its body is awaited. */
  private bodyLength: number | undefined;
  private readonly decoder = new TextDecoder();

  constructor(private readonly onMalformed: (header: string) => void = () => {}) {}

  /** Feeds bytes; returns the bodies (JSON text) they complete, in order. */
  push(chunk: Uint8Array): string[] {
    if (chunk.byteLength > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.byteLength;
    }
    const messages: string[] = [];
    for (;;) {
      if (this.bodyLength === undefined) {
        const bytes = this.merged();
        const end = indexOfHeaderEnd(bytes);
        if (end === -1) {
          if (bytes.byteLength > MAX_HEADER_BYTES) {
            this.onMalformed(this.decoder.decode(bytes.subarray(0, 200)));
            this.take(bytes.byteLength);
          }
          break;
        }
        const header = this.decoder.decode(this.take(end + HEADER_END.length)).slice(0, end);
        const length = contentLength(header);
        if (length === undefined) {
          this.onMalformed(header.slice(0, 200));
          continue;
        }
        this.bodyLength = length;
      }
      if (this.buffered < this.bodyLength) break;
      const body = this.take(this.bodyLength);
      this.bodyLength = undefined;
      messages.push(this.decoder.decode(body));
    }
    return messages;
  }

  /** Bytes read but not yet part of a whole message. */
  get pending(): number {
    return this.buffered;
  }

  /** All buffered bytes as one array (a header is only searched for in small buffers). */
  private merged(): Uint8Array {
    if (this.chunks.length > 1) {
      const all = new Uint8Array(this.buffered);
      let offset = 0;
      for (const chunk of this.chunks) {
        all.set(chunk, offset);
        offset += chunk.byteLength;
      }
      this.chunks = [all];
    }
    return this.chunks[0] ?? new Uint8Array(0);
  }

  /** Removes and returns the first `count` buffered bytes. */
  private take(count: number): Uint8Array {
    const bytes = this.merged();
    const taken = bytes.subarray(0, count);
    const rest = bytes.subarray(count);
    this.chunks = rest.byteLength > 0 ? [rest] : [];
    this.buffered = rest.byteLength;
    return taken;
  }
}

function indexOfHeaderEnd(bytes: Uint8Array): number {
  outer: for (let i = 0; i + HEADER_END.length <= bytes.byteLength; i++) {
    for (let j = 0; j < HEADER_END.length; j++) {
      if (bytes[i + j] !== HEADER_END[j]) continue outer;
    }
    return i;
  }
  return -1;
}

/** The Content-Length of a header block, when it has exactly one usable value. */
function contentLength(header: string): number | undefined {
  let length: number | undefined;
  for (const line of header.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon === -1) return undefined;
    if (line.slice(0, colon).trim().toLowerCase() !== "content-length") continue;
    const value = line.slice(colon + 1).trim();
    if (!/^\d{1,10}$/.test(value) || length !== undefined) return undefined;
    length = Number(value);
  }
  return length;
}
