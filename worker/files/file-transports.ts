/**
 * How a file operation reaches the container: two providers behind one
 * interface, as VS Code's file service has one per scheme. `Files`
 * (sandbox-files.ts) picks one per call and knows nothing of either.
 *
 *   ResidentTransport  a request to the container's resident agent (worker/resident/): no process start
 *   HelperTransport    one short Python process per call through exec(): always there, slower
 *
 * Both run the same Python operations (sandbox/file_operations.py), answer
 * in the same types (the table of operations, agent-operations.ts) and fail
 * the same way: a refusal is a SandboxFileError about the subject's path, a
 * broken answer a SandboxProtocolError.
 */
import { ErrorCode } from "../../protocol/errors";
import { concatBytes } from "../bytes";
import { AppError } from "../errors";
import { type AgentClient, AgentRequestError, AgentStoppedError, type RequestOptions } from "../resident/agent-client";
import type { AgentCall, AgentCalls, AgentStat, AgentStreams } from "../resident/agent-operations";
import type { Sandbox, SandboxProcess } from "../sandbox/sandbox";
import { HELPER_SCRIPT } from "./helper-script";
import { type FileOperation, SandboxFileError, SandboxProtocolError } from "./sandbox-file-error";

/** What a failure is about: the operation as `Files` names it, and the workspace paths it was given. */
export interface Subject {
  operation: FileOperation;
  path: string;
  destination?: string;
}

export interface CallOptions {
  user?: string;
  signal?: AbortSignal;
}

/** The operations answered with one JSON result. */
export type JsonOp = "stat" | "lstat" | "readdir" | "commit";
/** The operations done for their effect alone. */
export type ActOp = "mkdir" | "rename" | "remove";
/** The operations whose request body is the content. */
export type PipeOp = "write" | "write-at" | "save";

export interface FileTransport {
  call<Op extends JsonOp>(
    op: Op,
    args: AgentCalls[Op]["args"],
    options: CallOptions,
    subject: Subject,
  ): Promise<AgentCalls[Op]["result"]>;
  act<Op extends ActOp>(op: Op, args: AgentCalls[Op]["args"], options: CallOptions, subject: Subject): Promise<void>;
  /** A listing's JSON bytes as the container wrote them, unparsed. */
  list(args: AgentCalls["list"]["args"], options: CallOptions, subject: Subject): Promise<Uint8Array>;
  pipe<Op extends PipeOp>(
    op: Op,
    args: AgentCalls[Op]["args"],
    content: ReadableStream<Uint8Array>,
    options: CallOptions,
    subject: Subject,
  ): Promise<AgentCalls[Op]["result"]>;
  /** A file's bytes as a stream, once it is open (with its stat when asked). */
  read(args: AgentStreams["read"]["args"], options: CallOptions, subject: Subject): Promise<Opened>;
}

export interface Opened {
  body: ReadableStream<Uint8Array>;
  stat?: AgentStat;
}

/** Operations as requests to the resident agent. */
export class ResidentTransport implements FileTransport {
  constructor(private readonly agent: AgentClient) {}

  call<Op extends JsonOp>(op: Op, args: AgentCalls[Op]["args"], options: CallOptions, subject: Subject) {
    return this.ask(subject, () => this.agent.call(op, args, requestOptions(options)));
  }

  async act<Op extends ActOp>(op: Op, args: AgentCalls[Op]["args"], options: CallOptions, subject: Subject) {
    await this.ask(subject, () => this.agent.call(op, args, requestOptions(options)));
  }

  list(args: AgentCalls["list"]["args"], options: CallOptions, subject: Subject): Promise<Uint8Array> {
    return this.ask(subject, () => this.agent.callForBytes("list", args, requestOptions(options)));
  }

  pipe<Op extends PipeOp>(
    op: Op,
    args: AgentCalls[Op]["args"],
    content: ReadableStream<Uint8Array>,
    options: CallOptions,
    subject: Subject,
  ) {
    return this.ask(subject, () => this.agent.call(op, args, { ...requestOptions(options), body: content }));
  }

  async read(args: AgentStreams["read"]["args"], options: CallOptions, subject: Subject): Promise<Opened> {
    const { head, body } = await this.ask(subject, () => this.agent.open("read", args, requestOptions(options)));
    if (args[1] === "stat" && !head) throw SandboxProtocolError.create("the agent sent no stat for a read with stat");
    return { body: mapError(body, (error) => agentFailure(error, subject)), ...(head ? { stat: head } : {}) };
  }

  private async ask<T>(subject: Subject, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw agentFailure(error, subject);
    }
  }
}

/** Operations as one short Python process each, through exec(). */
export class HelperTransport implements FileTransport {
  constructor(
    private readonly sandbox: Pick<Sandbox, "exec">,
    /** The directory no path may leave through a symbolic link ("" for none). */
    private readonly confineTo: string,
  ) {}

  async call<Op extends JsonOp>(op: Op, args: AgentCalls[Op]["args"], options: CallOptions, subject: Subject) {
    return parsedAnswer(op, await this.run(op, args, options, subject));
  }

  async act<Op extends ActOp>(op: Op, args: AgentCalls[Op]["args"], options: CallOptions, subject: Subject) {
    await this.run(op, args, options, subject);
  }

  async list(args: AgentCalls["list"]["args"], options: CallOptions, subject: Subject): Promise<Uint8Array> {
    return new TextEncoder().encode(await this.run("list", args, options, subject));
  }

  async pipe<Op extends PipeOp>(
    op: Op,
    args: AgentCalls[Op]["args"],
    content: ReadableStream<Uint8Array>,
    options: CallOptions,
    subject: Subject,
  ): Promise<AgentCalls[Op]["result"]> {
    // The runtime pumps `stdin`; the tap remembers whether the caller's stream failed.
    let streamError: { error: unknown } | undefined;
    const reader = content.getReader();
    const stdin = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          streamError = { error };
          controller.error(error);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    const proc = await this.spawn(op, args, options, stdin);
    const output = await proc.output();
    if (streamError) throw streamError.error;
    if (output.exitCode !== 0) throw parseFailure(new TextDecoder().decode(output.stderr), subject, output.exitCode);
    return parsedAnswer(op, new TextDecoder().decode(output.stdout));
  }

  read(args: AgentStreams["read"]["args"], options: CallOptions, subject: Subject): Promise<Opened> {
    return this.open("read", args, options, subject);
  }

  /**
   * A folder as a `.tar.gz` stream from `tar` run in it (the helper alone does this). tar's own
   * warnings (a file that changed while it was read) do not fail the stream.
   */
  async archive(path: string, options: CallOptions, subject: Subject): Promise<ReadableStream<Uint8Array>> {
    return (await this.open("archive", [path], options, subject)).body;
  }

  private async open(
    op: "read" | "archive",
    args: readonly string[],
    options: CallOptions,
    subject: Subject,
  ): Promise<Opened> {
    const withStat = args[1] === "stat";
    const proc = await this.spawn(op, args, options);
    const stdout = proc.stdout;
    if (!stdout) throw SandboxProtocolError.create("the helper has no stdout");
    // Drain stderr from the start: it carries the error, and an unread pipe can stall the process.
    const stderr = proc.stderr ? new Response(proc.stderr).text() : Promise.resolve("");
    const fail = async (exitCode?: number) => parseFailure(await stderr, subject, exitCode ?? (await proc.exitCode));
    const reader = stdout.getReader();
    // The helper writes one 0x01 byte once the file is open (then a stat line when asked).
    let head: Uint8Array = new Uint8Array(0);
    let headerEnd = -1;
    while (headerEnd === -1) {
      const next = await reader.read();
      if (next.done) {
        if (head.byteLength === 0) throw await fail();
        throw SandboxProtocolError.create("the helper ended before its header");
      }
      head = concatBytes([head, next.value as Uint8Array]);
      if (head.byteLength > 0 && !withStat) headerEnd = 1;
      else if (withStat) {
        const newline = head.indexOf(10);
        if (newline !== -1) headerEnd = newline + 1;
      }
    }
    const stat = withStat
      ? (JSON.parse(new TextDecoder().decode(head.subarray(1, headerEnd - 1))) as AgentStat)
      : undefined;
    const rest = head.subarray(headerEnd);
    const lenient = op === "archive";
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        if (rest.byteLength > 0) controller.enqueue(rest);
      },
      async pull(controller) {
        const next = await reader.read();
        if (!next.done) return controller.enqueue(next.value as Uint8Array);
        const exitCode = await proc.exitCode;
        if (exitCode === 0 || lenient) controller.close();
        else controller.error(await fail(exitCode));
      },
      cancel(reason) {
        // No proc.kill(): under local workerd it signals the whole container. The
        // helper gets EPIPE at its next write and exits.
        void reader.cancel(reason).catch(() => {});
      },
    });
    return { body, ...(stat ? { stat } : {}) };
  }

  private spawn(
    op: string,
    args: readonly string[],
    options: CallOptions,
    stdin?: ReadableStream<Uint8Array>,
  ): Promise<SandboxProcess> {
    return this.sandbox.exec(["python3", "-c", HELPER_SCRIPT, op, this.confineTo, ...args], {
      cwd: "/",
      ...(stdin ? { stdin } : {}),
      ...(options.user ? { user: options.user } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  private async run(op: string, args: readonly string[], options: CallOptions, subject: Subject): Promise<string> {
    const proc = await this.spawn(op, args, options);
    const output = await proc.output();
    if (output.exitCode !== 0) throw parseFailure(new TextDecoder().decode(output.stderr), subject, output.exitCode);
    return new TextDecoder().decode(output.stdout);
  }
}

/** The helper's failure: its last stderr line names the Linux error, else its output says what broke. */
function parseFailure(stderr: string, subject: Subject, exitCode: number) {
  const line = stderr.trim().split("\n").pop() ?? "";
  try {
    const { code, detail } = JSON.parse(line) as { code: string; detail: string };
    if (typeof code === "string" && typeof detail === "string")
      return SandboxFileError.create({ code, detail, ...subject });
  } catch {
    // fall through
  }
  return SandboxProtocolError.create(`exit code ${exitCode}: ${stderr.trim().slice(0, 300) || "no output"}`);
}

/** An answer to `op` (the helper's output, or a listing's bytes decoded), its JSON parsed, as the table of operations types it. */
export function parsedAnswer<Op extends AgentCall>(op: Op, text: string): AgentCalls[Op]["result"] {
  try {
    return JSON.parse(text) as AgentCalls[Op]["result"];
  } catch {
    throw SandboxProtocolError.create(`unreadable answer to ${op}: ${text.slice(0, 200)}`);
  }
}

function requestOptions(options: CallOptions): RequestOptions {
  return options.signal ? { signal: options.signal } : {};
}

/** An agent's refusal as the helper's would be (SandboxFileError); its death as a container that stopped answering. */
function agentFailure(error: unknown, subject: Subject): unknown {
  if (error instanceof AgentRequestError)
    return SandboxFileError.create({ code: error.code, detail: error.detail, ...subject });
  if (error instanceof AgentStoppedError) return new AppError(ErrorCode.CONTAINER_UNAVAILABLE, error.message);
  return error;
}

/** `stream` with its error replaced by `map(error)`. */
function mapError(stream: ReadableStream<Uint8Array>, map: (error: unknown) => unknown): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          controller.error(map(error));
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
