import { type AgentConnection, AgentUnavailableError, helloRefusal } from "./agent-client";
import { type Frame, FrameDecoder, FrameKind } from "./agent-protocol";

/**
 * The agent's frames over a TCP connection instead of its exec's stdio
 * (`python3 -c AGENT_SCRIPT ROOT tcp`; the agent's side is handshake() in
 * agent-script.ts). A container's exec stdout reaches the Worker in pieces of
 * 4-32 KiB, so a MiB read took 40 ms where a socket to the container takes
 * 13-27 ms, connect included.
 *
 * The handshake: a 128-bit token on the agent's stdin; the agent listens on a
 * port of its choosing and names it in a first HELLO on stdout; the Worker
 * connects, presents the token, and the agent says HELLO again on the socket.
 * Anything that fails on the way (no connect() to container ports, a
 * connection that never answers) ends with a "stdio" line on stdin, and the
 * same process speaks over stdio as before.
 */

/** A TCP connection as workerd's `connect()` gives it (Node's, wrapped, in unit tests). */
export interface AgentSocket {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
  opened: Promise<unknown>;
  close(): Promise<void> | void;
}

export interface TcpHandshake {
  /** The agent's exec stdin and stdout. */
  stdin: WritableStream<Uint8Array>;
  stdout: ReadableStream<Uint8Array>;
  /** Opens a connection to the container's port. */
  connect(port: number): AgentSocket;
  /** How long the agent may take to start (its first HELLO). */
  startTimeoutMs: number;
  /** How long the connection and its HELLO may take before stdio is used instead. */
  connectTimeoutMs: number;
}

export type TcpOutcome = { socket: AgentSocket } | { stdio: string };

const encoder = new TextEncoder();

/**
 * Runs the handshake. Resolves with the socket the frames now go over (its
 * HELLO already read), or with why the frames stay on stdio (the agent was
 * told so). Rejects with AgentUnavailableError when the agent itself did not start.
 */
export async function connectAgentOverTcp(handshake: TcpHandshake): Promise<TcpOutcome> {
  const token = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const stdin = handshake.stdin.getWriter();
  try {
    const listening = await withTimeout(
      (async () => {
        await stdin.write(encoder.encode(`${token}\n`));
        return readFirstFrame(handshake.stdout);
      })(),
      handshake.startTimeoutMs,
      "no answer",
    ).catch((error) => {
      throw error instanceof AgentUnavailableError
        ? error
        : new AgentUnavailableError(error instanceof Error ? error.message : String(error));
    });
    const port = helloOf(listening).port;
    if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw new AgentUnavailableError(`its first HELLO named no port (${JSON.stringify(listening.header)})`);
    }
    let socket: AgentSocket | undefined;
    try {
      socket = handshake.connect(port);
      const opened = socket;
      await withTimeout(
        (async () => {
          await opened.opened;
          const writer = opened.writable.getWriter();
          await writer.write(encoder.encode(`${token}\n`));
          writer.releaseLock();
          helloOf(await readFirstFrame(opened.readable));
        })(),
        handshake.connectTimeoutMs,
        "no HELLO on the connection",
      );
      return { socket };
    } catch (error) {
      await Promise.resolve(socket?.close()).catch(() => {});
      await stdin.write(encoder.encode("stdio\n"));
      return { stdio: `port ${port}: ${error instanceof Error ? error.message : String(error)}` };
    }
  } finally {
    stdin.releaseLock();
  }
}

/** The HELLO's header, checked: the frame is a HELLO of our version. */
function helloOf(frame: Frame): { port?: unknown } {
  if (frame.kind !== FrameKind.HELLO)
    throw new AgentUnavailableError(`its first frame is kind ${frame.kind}, not HELLO`);
  const refusal = helloRefusal(frame.header);
  if (refusal) throw refusal;
  return frame.header as { port?: unknown };
}

/**
 * The stream's first frame, read to its last byte and no further: the
 * stream is handed on after it (its lock released). A byte stream is read
 * exactly; another (a child process's, in unit tests) must not carry more
 * than the frame in the reads that hold it (the agent sends nothing else
 * until it is answered).
 */
export async function readFirstFrame(stream: ReadableStream<Uint8Array>): Promise<Frame> {
  const decoder = new FrameDecoder();
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream.
  }
  if (byob) {
    try {
      const prefix = await readExactly(byob, 4);
      const rest = await readExactly(byob, new DataView(prefix.buffer, prefix.byteOffset).getUint32(0));
      const [frame] = [...decoder.push(prefix), ...decoder.push(rest)];
      if (!frame) throw new Error("not an agent frame");
      return frame;
    } finally {
      byob.releaseLock();
    }
  }
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error("it ended before its first frame");
      const frames = decoder.push(value);
      if (frames.length > 1) throw new Error("more than one frame before it was answered");
      if (frames[0]) return frames[0];
    }
  } finally {
    reader.releaseLock();
  }
}

async function readExactly(reader: ReadableStreamBYOBReader, n: number): Promise<Uint8Array> {
  if (n > 64 * 1024) throw new Error(`not an agent frame (length ${n})`);
  const bytes = new Uint8Array(n);
  let filled = 0;
  while (filled < n) {
    const { done, value } = await reader.read(new Uint8Array(n - filled));
    if (done || !value) throw new Error("it ended before its first frame");
    bytes.set(value, filled);
    filled += value.byteLength;
  }
  return bytes;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The connection the session speaks over after the handshake: the socket
 * (its HELLO already read; ending it closes the socket, then the process), or
 * the process's own stdio when the frames stayed there.
 */
export function connectionAfter(outcome: TcpOutcome, overStdio: AgentConnection): AgentConnection {
  if ("stdio" in outcome) return overStdio;
  const { socket } = outcome;
  return {
    readable: socket.readable,
    writable: socket.writable,
    exited: overStdio.exited,
    kill: async () => {
      await Promise.resolve(socket.close()).catch(() => {});
      await overStdio.kill();
    },
    greeted: true,
  };
}
