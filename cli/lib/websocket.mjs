// A small WebSocket client (RFC 6455) over node:http(s): Node 20 has no
// WebSocket of its own, the tunnel needs headers a browser-style WebSocket
// cannot send (Authorization, Cloudflare Access's), and TCP backpressure is
// the flow control. Client frames are masked; fragmented messages are joined.
import { createHash, randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import http from "node:http";
import https from "node:https";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/**
 * Connects; resolves with an open socket, or rejects with the server's
 * refusal (status and its JSON `{code, message}` when it sent one).
 * Events: "message" (data: Buffer, binary: boolean), "close" (code, reason), "error".
 * @param {string} url ws:// or wss://
 * @param {Record<string, string>} headers
 * @param {AbortSignal} [signal] gives up the attempt (rejects with an AbortError)
 */
export function connectWebSocket(url, headers = {}, signal) {
  const target = new URL(url);
  const secure = target.protocol === "wss:" || target.protocol === "https:";
  const key = randomBytes(16).toString("base64");
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request({
      hostname: target.hostname.replace(/^\[|\]$/g, ""),
      port: target.port || (secure ? 443 : 80),
      path: `${target.pathname}${target.search}`,
      headers: {
        ...headers,
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Key": key,
        "Sec-WebSocket-Version": "13",
      },
      signal,
    });
    request.on("upgrade", (response, socket, head) => {
      const expected = createHash("sha1").update(`${key}${GUID}`).digest("base64");
      if (response.headers["sec-websocket-accept"] !== expected) {
        socket.destroy();
        reject(new Error("the server's WebSocket handshake is wrong"));
        return;
      }
      resolve(new ClientWebSocket(socket, head));
    });
    request.on("response", (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        const error = new Error(body?.message ?? `HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
        error.status = response.statusCode;
        error.code = body?.code;
        reject(error);
      });
    });
    request.on("error", reject);
    request.end();
  });
}

class ClientWebSocket extends EventEmitter {
  /** @param {import("node:net").Socket} socket */
  constructor(socket, head) {
    super();
    this.socket = socket;
    this.buffer = head.length > 0 ? Buffer.from(head) : Buffer.alloc(0);
    this.fragments = [];
    this.fragmentBinary = false;
    this.closed = false;
    socket.setNoDelay(true);
    socket.on("data", (chunk) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.parse();
    });
    socket.on("close", () => this.ended(1006, "the connection ended"));
    socket.on("error", (error) => this.emit("error", error));
    if (this.buffer.length > 0) queueMicrotask(() => this.parse());
  }

  /** Sends a binary (Buffer) or text (string) message; false when the socket's buffer is full (wait for "drain"). */
  send(data) {
    const binary = typeof data !== "string";
    return this.frame(binary ? 0x2 : 0x1, binary ? data : Buffer.from(data, "utf8"));
  }

  close(code = 1000, reason = "") {
    if (this.closed) return;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    this.frame(0x8, payload);
    this.socket.end();
    this.ended(code, reason);
  }

  /** Stops reading (backpressure reaches the server through TCP). */
  pause() {
    this.socket.pause();
  }

  resume() {
    this.socket.resume();
  }

  ended(code, reason) {
    if (this.closed) return;
    this.closed = true;
    this.emit("close", code, reason);
  }

  frame(opcode, payload) {
    if (this.socket.destroyed) return false;
    const length = payload.length;
    const header = Buffer.alloc(length < 126 ? 2 : length < 65536 ? 4 : 10);
    header[0] = 0x80 | opcode;
    if (length < 126) header[1] = 0x80 | length;
    else if (length < 65536) {
      header[1] = 0x80 | 126;
      header.writeUInt16BE(length, 2);
    } else {
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(length), 2);
    }
    const mask = randomBytes(4);
    const masked = Buffer.allocUnsafe(length);
    for (let i = 0; i < length; i++) masked[i] = payload[i] ^ mask[i & 3];
    return this.socket.write(Buffer.concat([header, mask, masked]));
  }

  parse() {
    for (;;) {
      const buffer = this.buffer;
      if (buffer.length < 2) return;
      const fin = (buffer[0] & 0x80) !== 0;
      const opcode = buffer[0] & 0x0f;
      const masked = (buffer[1] & 0x80) !== 0;
      let length = buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return;
        length = Number(buffer.readBigUInt64BE(2));
        offset = 10;
      }
      const maskOffset = offset;
      if (masked) offset += 4;
      if (buffer.length < offset + length) return;
      let payload = buffer.subarray(offset, offset + length);
      if (masked) {
        const mask = buffer.subarray(maskOffset, maskOffset + 4);
        payload = Buffer.from(payload);
        for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
      }
      this.buffer = buffer.subarray(offset + length);
      this.handle(fin, opcode, payload);
    }
  }

  handle(fin, opcode, payload) {
    if (opcode === 0x8) {
      const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      const reason = payload.subarray(2).toString("utf8");
      if (!this.closed) {
        this.frame(0x8, payload.subarray(0, 2));
        this.socket.end();
      }
      this.ended(code, reason);
      return;
    }
    if (opcode === 0x9) {
      this.frame(0xa, payload);
      return;
    }
    if (opcode === 0xa) return;
    if (opcode === 0x1 || opcode === 0x2) {
      this.fragments = [payload];
      this.fragmentBinary = opcode === 0x2;
    } else if (opcode === 0x0) this.fragments.push(payload);
    else return;
    if (!fin) return;
    const data = this.fragments.length === 1 ? this.fragments[0] : Buffer.concat(this.fragments);
    this.fragments = [];
    this.emit("message", this.fragmentBinary ? Buffer.from(data) : data.toString("utf8"), this.fragmentBinary);
  }
}
