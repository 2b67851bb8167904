import type { AgentCall, AgentCalls, AgentStreamOp, AgentStreams } from "./agent-operations";
import {
  AGENT_VERSION,
  encodeData,
  encodeFrame,
  type Frame,
  FrameDecoder,
  FrameKind,
  MAX_PAYLOAD,
  WINDOW,
} from "./agent-protocol";

/** The agent process as the client needs it: its stdout, its stdin, and a way to end it. */
export interface AgentConnection {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
  /** Settles when the process ended. */
  exited: Promise<unknown>;
  kill(): Promise<void>;
  /** The launcher already read (and checked) the agent's HELLO: the session does not wait for one. */
  greeted?: boolean;
}

/** Starts one agent process (the sandbox adapter's exec, or a child process in unit tests). */
export type AgentLauncher = () => Promise<AgentConnection>;

/** The agent refused the request: a Linux error name (ENOENT, EXDEV...) and its detail. */
export class AgentRequestError extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
    this.name = "AgentRequestError";
  }
}

/** The agent died (or its stream broke) while this request was in flight; the next request starts a new one. */
export class AgentStoppedError extends Error {
  constructor(reason: string) {
    super(`The file agent in the container stopped during this request (${reason}); try again.`);
    this.name = "AgentStoppedError";
  }
}

/** The agent could not start (an image without python3, a start that never answered). */
export class AgentUnavailableError extends Error {
  constructor(reason: string) {
    super(`The file agent could not start: ${reason}`);
    this.name = "AgentUnavailableError";
  }
}

export interface RequestOptions {
  /** The request's content, sent as DATA frames as the agent takes it. */
  body?: ReadableStream<Uint8Array>;
  signal?: AbortSignal;
}

/** {@link AgentClient.callForBytes}'s: a call whose answer is handed on unparsed sends no content. */
export type BytesOptions = Omit<RequestOptions, "body">;

export interface AgentStream<Op extends AgentStreamOp = AgentStreamOp> {
  /** HEAD's header: a read's stat (when asked), undefined otherwise. */
  head: AgentStreams[Op]["head"];
  /** The DATA that follows; errors with the request's ERROR, cancelling it cancels the request. */
  body: ReadableStream<Uint8Array>;
  /** RESULT's header once the request ended (a command's exit code); rejects with its ERROR. */
  result: Promise<AgentStreams[Op]["result"]>;
}

/** How long a new agent may take to say HELLO (python's start, on a busy ½ vCPU). */
export const HELLO_TIMEOUT_MS = 20_000;

/** Why a HELLO's header cannot be served (another version of the agent), or undefined when it can. */
export function helloRefusal(header: unknown): AgentUnavailableError | undefined {
  const version = (header as { version?: unknown } | undefined)?.version;
  return version === AGENT_VERSION
    ? undefined
    : new AgentUnavailableError(`it speaks version ${String(version)}, not ${AGENT_VERSION}`);
}

/**
 * The Worker's side of the resident agent: one process at a time, started on
 * first use (or by start()), started again on the request after it died.
 * Requests are multiplexed over its stdio with their own ids; each stream is
 * flow-controlled on its own (see agent-protocol.ts).
 */
export class AgentClient {
  private session: Promise<AgentSession> | undefined;
  private readonly stopListeners = new Set<() => void>();

  constructor(
    private readonly launch: AgentLauncher,
    private readonly helloTimeoutMs = HELLO_TIMEOUT_MS,
  ) {}

  /** Starts the agent when none runs; resolves once it said HELLO. */
  async start(): Promise<void> {
    await this.current();
  }

  /** Whether an agent runs (said HELLO and has not stopped). */
  get running(): boolean {
    return this.live !== undefined;
  }
  private live: AgentSession | undefined;

  /** Calls `listener` each time a running agent stops (requests in flight got AgentStoppedError). */
  onStopped(listener: () => void): () => void {
    this.stopListeners.add(listener);
    return () => this.stopListeners.delete(listener);
  }

  /**
   * Runs `op` to its RESULT, typed by the table of operations
   * (agent-operations.ts): the one place the agent's JSON meets its type.
   */
  async call<Op extends AgentCall>(
    op: Op,
    args: AgentCalls[Op]["args"],
    options: RequestOptions = {},
  ): Promise<AgentCalls[Op]["result"]> {
    options.signal?.throwIfAborted();
    return (await (await this.current()).call(op, args, options)) as AgentCalls[Op]["result"];
  }

  /** Runs `op` to its RESULT, whose answer comes as its JSON bytes, never parsed here. */
  async callForBytes<Op extends AgentCall>(
    op: Op,
    args: AgentCalls[Op]["args"],
    options: BytesOptions = {},
  ): Promise<Uint8Array> {
    options.signal?.throwIfAborted();
    return (await this.current()).call(op, args, options, "bytes") as Promise<Uint8Array>;
  }

  /** Runs `op` and resolves at its HEAD, with the DATA that follows as a stream. */
  async open<Op extends AgentStreamOp>(
    op: Op,
    args: AgentStreams[Op]["args"],
    options: RequestOptions = {},
  ): Promise<AgentStream<Op>> {
    options.signal?.throwIfAborted();
    return (await this.current()).open(op, args, options) as Promise<AgentStream<Op>>;
  }

  /** Ends the running agent (its requests get AgentStoppedError). */
  async stop(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    if (session)
      await session.then(
        (s) => s.close("it was stopped"),
        () => {},
      );
  }

  private current(): Promise<AgentSession> {
    this.session ??= this.begin();
    return this.session;
  }

  private async begin(): Promise<AgentSession> {
    let connection: AgentConnection;
    try {
      connection = await this.launch();
    } catch (error) {
      this.session = undefined;
      throw error;
    }
    const session = new AgentSession(connection, () => {
      const wasLive = this.live === session;
      if (wasLive) {
        // The session promise is this one's (live is set only once it said HELLO): the next request starts anew.
        this.live = undefined;
        this.session = undefined;
      }
      // Only one that ran: an agent that never said HELLO is the start's failure, not a stop.
      if (wasLive) for (const listener of this.stopListeners) listener();
    });
    try {
      await session.hello(this.helloTimeoutMs);
    } catch (error) {
      this.session = undefined;
      await session.close("it did not start");
      throw error;
    }
    this.live = session;
    return session;
  }
}

/** A stream as the session sees it: the table of operations types it at the client's open(). */
interface UntypedStream {
  head: unknown;
  body: ReadableStream<Uint8Array>;
  result: Promise<unknown>;
}

/** A request in flight. */
interface Pending {
  /** Bytes of the request's content the agent still accepts. */
  credit: number;
  creditWaiter?: () => void;
  /** DATA received and not yet read. */
  inbox: Uint8Array[];
  /** A call's: DATA is its answer (one too large for a header), taken in as it comes, then parsed or not. */
  collect?: "json" | "bytes";
  inboxWaiter?: () => void;
  head?: { resolve(value: unknown): void; reject(error: unknown): void };
  result: { resolve(value: unknown): void; reject(error: unknown): void };
  /** Set once the request ended (RESULT, ERROR, cancelled, or the agent stopped). */
  done?: { error?: unknown };
}

/** One agent process: its frames, its requests. */
class AgentSession {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private closed: string | undefined;
  private exited = false;
  private helloSeen: (() => void) | undefined;
  private helloFailed: ((error: Error) => void) | undefined;

  constructor(
    private readonly connection: AgentConnection,
    private readonly stopped: () => void,
  ) {
    this.writer = connection.writable.getWriter();
    void this.readLoop();
    const exited = () => {
      this.exited = true;
      void this.close("its process exited");
    };
    void connection.exited.then(exited, exited);
  }

  hello(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.closed) return reject(new AgentUnavailableError(this.closed));
      if (this.connection.greeted) return resolve();
      const timer = setTimeout(
        () => reject(new AgentUnavailableError(`no answer within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      this.helloSeen = () => {
        clearTimeout(timer);
        resolve();
      };
      this.helloFailed = (error) => {
        clearTimeout(timer);
        reject(error);
      };
    });
  }

  call(
    op: string,
    args: readonly string[],
    options: RequestOptions,
    answer: "json" | "bytes" = "json",
  ): Promise<unknown> {
    const { id, pending } = this.request(op, args, options);
    pending.collect = answer;
    const done = new Promise<unknown>((resolve, reject) => {
      pending.result = { resolve, reject };
    });
    this.abortOn(options.signal, id);
    return done;
  }

  async open(op: string, args: readonly string[], options: RequestOptions): Promise<UntypedStream> {
    const { id, pending } = this.request(op, args, options);
    const head = new Promise<unknown>((resolve, reject) => {
      pending.head = { resolve, reject };
    });
    const result = new Promise<unknown>((resolve, reject) => {
      pending.result = { resolve, reject };
    });
    // Awaited only by callers that want the end (a command's exit code).
    result.catch(() => {});
    this.abortOn(options.signal, id);
    const value = await head;
    const body = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          while (pending.inbox.length === 0 && !pending.done) {
            await new Promise<void>((resolve) => {
              pending.inboxWaiter = resolve;
            });
          }
          const chunk = pending.inbox.shift();
          if (chunk) {
            // A request that ended takes no more: a CREDIT then is a write for nothing (and over TCP, a small
            // write the next request's OPEN would wait behind until it was acknowledged).
            if (!pending.done) this.send(encodeFrame(id, FrameKind.CREDIT, { n: chunk.byteLength }));
            controller.enqueue(chunk);
          } else if (pending.done?.error) controller.error(pending.done.error);
          else controller.close();
        },
        cancel: () => this.cancel(id),
      },
      { highWaterMark: 0 },
    );
    return { head: value, body, result };
  }

  async close(reason: string): Promise<void> {
    if (this.closed) return;
    this.closed = reason;
    this.helloFailed?.(new AgentUnavailableError(reason));
    for (const id of [...this.pending.keys()]) this.finish(id, new AgentStoppedError(reason));
    this.stopped();
    // Its stdin closed, the agent cancels what is in flight and exits; the kill is for one that hangs.
    await this.writer.close().catch(() => {});
    if (!this.exited) await this.connection.kill().catch(() => {});
  }

  private request(op: string, args: readonly string[], options: RequestOptions) {
    if (this.closed) throw new AgentStoppedError(this.closed);
    const id = this.nextId++;
    // call() sets `result`; a stream's end is reported through its body, and nobody awaits it.
    const pending: Pending = { credit: WINDOW, inbox: [], result: { resolve: () => {}, reject: () => {} } };
    this.pending.set(id, pending);
    this.send(encodeFrame(id, FrameKind.OPEN, { op, args }));
    if (options.body) void this.pump(id, pending, options.body);
    else this.send(encodeFrame(id, FrameKind.END));
    return { id, pending };
  }

  /**
   * Sends a request's content as the agent grants credit for it, in DATA
   * frames of MAX_PAYLOAD bytes (the last one shorter): a body arrives in
   * reads of a few KiB, and each frame is a write to the exec's stdin and a
   * CREDIT back. Content waits here until a frame is full or the body ended,
   * so this is for content sent whole (a save, a command's stdin), not typed.
   */
  private async pump(id: number, pending: Pending, body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    let held: Uint8Array[] = [];
    let heldBytes = 0;
    /** Sends what is held; false when the request ended meanwhile. */
    const flush = async (): Promise<boolean> => {
      while (pending.credit < heldBytes && !pending.done) {
        await new Promise<void>((resolve) => {
          pending.creditWaiter = resolve;
        });
      }
      if (pending.done) return false;
      if (heldBytes === 0) return true;
      pending.credit -= heldBytes;
      const frame = encodeData(id, held, heldBytes);
      held = [];
      heldBytes = 0;
      await this.write(frame);
      return true;
    };
    try {
      for (;;) {
        if (pending.done) return void reader.cancel().catch(() => {});
        const next = await reader.read();
        if (next.done) break;
        let chunk = next.value;
        while (chunk.byteLength > 0) {
          const part = chunk.subarray(0, MAX_PAYLOAD - heldBytes);
          chunk = chunk.subarray(part.byteLength);
          held.push(part);
          heldBytes += part.byteLength;
          if (heldBytes === MAX_PAYLOAD && !(await flush())) return void reader.cancel().catch(() => {});
        }
      }
      if (!(await flush())) return;
      this.send(encodeFrame(id, FrameKind.END));
    } catch (error) {
      // The caller's content failed (or the pipe broke): the agent drops what it wrote.
      if (!pending.done) {
        this.send(encodeFrame(id, FrameKind.CANCEL));
        this.finish(id, this.closed ? new AgentStoppedError(this.closed) : error);
      }
    }
  }

  private abortOn(signal: AbortSignal | undefined, id: number): void {
    if (!signal) return;
    const abort = () => {
      if (!this.pending.has(id)) return;
      this.send(encodeFrame(id, FrameKind.CANCEL));
      this.finish(id, signal.reason);
    };
    signal.addEventListener("abort", abort, { once: true });
  }

  private cancel(id: number): void {
    if (!this.pending.has(id)) return;
    this.send(encodeFrame(id, FrameKind.CANCEL));
    this.finish(id, new AgentStoppedError("cancelled"), true);
  }

  private send(frame: Uint8Array): void {
    if (this.closed) return;
    this.write(frame).catch(() => {});
  }

  /**
   * Writes a frame. A write that fails is the agent's input breaking (its
   * stdin, or its connection reset when it died): the session closes, so the
   * requests in flight, the writer's own included, end with AgentStoppedError,
   * never with the stream's raw error.
   */
  private async write(frame: Uint8Array): Promise<void> {
    try {
      await this.writer.write(frame);
    } catch (error) {
      void this.close(`its input failed: ${String(error)}`);
      throw error;
    }
  }

  private async readLoop(): Promise<void> {
    const decoder = new FrameDecoder();
    const read = chunkReader(this.connection.readable);
    let reason = "its output ended";
    try {
      for (;;) {
        const chunk = await read.next();
        if (!chunk) break;
        for (const frame of decoder.push(chunk)) this.dispatch(frame);
        if (this.closed) break;
      }
    } catch (error) {
      reason = `its output failed: ${String(error)}`;
    }
    void read.cancel();
    await this.close(reason);
  }

  private dispatch(frame: Frame): void {
    if (frame.kind === FrameKind.HELLO) {
      const refusal = helloRefusal(frame.header);
      if (refusal) this.helloFailed?.(refusal);
      else this.helloSeen?.();
      return;
    }
    const pending = this.pending.get(frame.id);
    if (!pending) return;
    switch (frame.kind) {
      case FrameKind.CREDIT:
        pending.credit += (frame.header as { n: number }).n;
        pending.creditWaiter?.();
        return;
      case FrameKind.HEAD:
        pending.head?.resolve(frame.header);
        pending.head = undefined;
        return;
      case FrameKind.DATA:
        pending.inbox.push(frame.payload);
        if (pending.collect) this.send(encodeFrame(frame.id, FrameKind.CREDIT, { n: frame.payload.byteLength }));
        pending.inboxWaiter?.();
        return;
      case FrameKind.RESULT: {
        let answer = frame.header;
        if (pending.collect === "bytes") {
          answer = pending.inbox.length > 0 ? joined(pending.inbox) : new TextEncoder().encode(JSON.stringify(answer));
        } else if (pending.collect && pending.inbox.length > 0) {
          try {
            answer = JSON.parse(new TextDecoder().decode(joined(pending.inbox)));
          } catch (error) {
            this.finish(frame.id, new AgentRequestError("EPROTO", `its answer is not JSON: ${String(error)}`));
            return;
          }
        }
        pending.head?.resolve(undefined);
        pending.result.resolve(answer);
        this.finish(frame.id);
        return;
      }
      case FrameKind.ERROR: {
        const { code, detail } = frame.header as { code: string; detail: string };
        this.finish(frame.id, new AgentRequestError(code, detail));
        return;
      }
    }
  }

  /** Ends a request: its waiters wake, its body ends (with `error`, if any). */
  private finish(id: number, error?: unknown, quiet = false): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    pending.done = error === undefined || quiet ? {} : { error };
    if (error !== undefined) {
      pending.head?.reject(error);
      pending.result.reject(error);
    }
    pending.creditWaiter?.();
    pending.inboxWaiter?.();
  }
}

/** A call's answer that came as DATA, its pieces in one. */
function joined(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const bytes = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return bytes;
}

/** Bytes one read of the agent's output may take at most. */
const READ_BUFFER = 256 * 1024;

/**
 * The agent's output, a read at a time. A byte stream (workerd's exec
 * stdout) is read into buffers of READ_BUFFER bytes, each read taking what
 * has arrived: its default reader hands out 4 KiB a read, 260 reads (and
 * decoder turns) a MiB. Other streams (a child process in unit tests) are
 * read as they come.
 */
function chunkReader(stream: ReadableStream<Uint8Array>): {
  next(): Promise<Uint8Array | undefined>;
  cancel(): void;
} {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream.
  }
  if (byob) {
    const reader = byob;
    return {
      async next() {
        const { done, value } = await reader.read(new Uint8Array(READ_BUFFER));
        return done || !value ? undefined : value;
      },
      cancel: () => void reader.cancel().catch(() => {}),
    };
  }
  const reader = stream.getReader();
  return {
    async next() {
      const { done, value } = await reader.read();
      return done ? undefined : value;
    },
    cancel: () => void reader.cancel().catch(() => {}),
  };
}
