// The ssh tunnel's client half: a duplex byte stream (stdio, or a TCP
// socket) <-> GET /ws/workspaces/{id}/ssh, with the tunnel's flow control
// (protocol/ssh-tunnel.ts): the server's acks bound what we send, and ours
// tell it what we passed on, so neither side buffers without limit.
import { authHeaders } from "./config.mjs";
import { connectWebSocket } from "./websocket.mjs";

/** Must agree with protocol/ssh-tunnel.ts. */
const WINDOW_BYTES = 8 * 1024 * 1024;
const ACK_BYTES = 256 * 1024;

/**
 * Opens the tunnel's WebSocket (rejects with the server's refusal, or with
 * an AbortError when `signal` gives up first).
 * @param {{ url: string, token?: string }} config
 * @param {string} workspaceId
 * @param {AbortSignal} [signal]
 */
export async function openTunnelSocket(config, workspaceId, signal) {
  const path = `/ws/workspaces/${encodeURIComponent(workspaceId)}/ssh`;
  const url = new URL(path, config.url);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  try {
    return await connectWebSocket(url.toString(), authHeaders(config), signal);
  } catch (error) {
    if (error.status !== undefined || signal?.aborted) throw error;
    // Some proxies (vite dev among them) drop a refused upgrade without its
    // answer: the same request without the upgrade says why (the server
    // checks the token and the role before it asks for an upgrade).
    throw (await refusalOf(config, path)) ?? error;
  }
}

async function refusalOf(config, path) {
  try {
    const response = await fetch(new URL(path, config.url), { headers: authHeaders(config), redirect: "manual" });
    const body = await response.json().catch(() => undefined);
    if (response.status === 426 || !body?.message) return undefined;
    const error = new Error(body.message);
    error.status = response.status;
    error.code = body.code;
    return error;
  } catch {
    return undefined;
  }
}

/**
 * Pipes `input` (readable) and `output` (writable) through the tunnel until
 * either side ends. Resolves with the close code and reason.
 * `early`: what was read from `input` while the tunnel opened (sent first),
 * and whether `input` had ended by then.
 */
export function pipeTunnel(socket, input, output, early = { chunks: [], ended: false }) {
  return new Promise((resolve) => {
    let unacked = 0;
    let passedOn = 0;
    let inputPaused = false;
    const pauseInput = () => {
      if (!inputPaused) {
        inputPaused = true;
        input.pause();
      }
    };
    const resumeInput = () => {
      if (inputPaused && unacked <= WINDOW_BYTES) {
        inputPaused = false;
        input.resume();
      }
    };
    input.on("data", (chunk) => {
      unacked += chunk.length;
      const more = socket.send(chunk);
      if (!more) {
        pauseInput();
        socket.socket.once("drain", resumeInput);
      }
      if (unacked > WINDOW_BYTES) pauseInput();
    });
    input.on("end", () => socket.close(1000, "input ended"));
    input.on("error", () => socket.close(1000, "input failed"));
    socket.on("message", (data, binary) => {
      if (!binary) {
        try {
          const ack = JSON.parse(data).ack;
          if (typeof ack === "number") {
            unacked = Math.max(0, unacked - ack);
            resumeInput();
          }
        } catch {
          // Not an ack: nothing else is sent as text.
        }
        return;
      }
      const more = output.write(data, () => {
        passedOn += data.length;
        if (passedOn >= ACK_BYTES) {
          socket.send(JSON.stringify({ ack: passedOn }));
          passedOn = 0;
        }
      });
      if (!more) {
        socket.pause();
        output.once("drain", () => socket.resume());
      }
    });
    socket.on("close", (code, reason) => {
      input.pause();
      resolve({ code, reason });
    });
    socket.on("error", () => {});
    // The first ack turns the server's flow control on (it waits for acks only from clients that send them).
    socket.send(JSON.stringify({ ack: 1 }));
    for (const chunk of early.chunks) {
      unacked += chunk.length;
      socket.send(chunk);
    }
    if (early.ended) socket.close(1000, "input ended");
    // A stream paused by its reader stays paused when a "data" listener is added.
    else input.resume();
  });
}
