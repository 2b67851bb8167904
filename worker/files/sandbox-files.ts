import { ErrorCode } from "../../protocol/errors";
import type { DirectoryListing } from "../../protocol/files";
import { concatBytes } from "../bytes";
import { AppError } from "../errors";
import {
  type AgentClient,
  AgentRequestError,
  AgentStoppedError,
  AgentUnavailableError,
  type RequestOptions,
} from "../resident/agent-client";
import type { AgentCall, AgentCalls, AgentStat, AgentStreams, Flag } from "../resident/agent-operations";
import type { Sandbox, SandboxProcess } from "../sandbox/sandbox";
import { HELPER_SCRIPT } from "./helper-script";
import { type FileOperation, SandboxFileError, SandboxProtocolError } from "./sandbox-file-error";

/**
 * File operations in a running container, with method names, options and
 * error semantics modelled on `Files` of `@cloudflare/sandbox` 1.x (not
 * published yet; its additions below mean it is not a drop-in). Each call
 * runs one short Python process through `exec()`; `readFile` returns as soon as
 * the file is open and streams, `writeFile` streams its content to stdin, so no
 * whole file is held in the Durable Object.
 *
 * One addition the official class lacks: `confineTo` makes the helper refuse
 * (EXDEV, like openat2 RESOLVE_BENEATH) a path that resolves outside that
 * directory through a symbolic link, checked in the same process that then
 * opens the path. With the official class that check would be a separate call.
 * The methods below the `Extensions` line are also ours.
 *
 * With an `agent` (worker/resident/), operations go to the container's resident
 * agent instead, which runs the same Python operations without a process
 * start each. An agent that cannot start is logged and the per-call helper
 * answers (`agentMode` says "fallback"); the folder download and calls with
 * a `user` always use the helper.
 */
export interface FileOperationOptions {
  cwd?: string;
  user?: string;
  signal?: AbortSignal;
}
export type MkdirOptions = FileOperationOptions & { recursive?: boolean };
export type RemoveOptions = FileOperationOptions & { recursive?: boolean; force?: boolean };
export type FileContent = string | ArrayBuffer | ArrayBufferView | Blob | ReadableStream<Uint8Array>;
export type SandboxFileType = "file" | "directory" | "symlink" | "blockDevice" | "characterDevice" | "fifo" | "socket";

export interface SandboxFileStat {
  type: SandboxFileType;
  size: bigint;
  mode: number;
  uid: number;
  gid: number;
  accessedAt: Date;
  modifiedAt: Date;
  changedAt: Date;
  /** Ours: an entity tag from inode, size and nanosecond mtime (changes on every save). */
  etag: string;
}

export interface SandboxDirectoryEntry {
  name: string;
  type: SandboxFileType;
}

/**
 * Ours: each entry with the metadata the file tree needs, in its types (a
 * device, fifo or socket is a file): the API's listing, which a route hands
 * on as the container wrote it.
 */
export type SandboxDirectoryListing = DirectoryListing;

const KNOWN_OPTIONS = new Set(["cwd", "user", "signal"]);
/** After the agent failed to start, calls use the per-call helper this long before it is tried again. */
const AGENT_RETRY_MS = 60_000;

export class Files {
  /** Until when the agent is not tried again (it could not start). */
  private fallbackUntil = 0;

  constructor(
    private readonly sandbox: Pick<Sandbox, "exec">,
    private readonly config: { confineTo?: string; agent?: AgentClient } = {},
  ) {}

  /** Ours: how operations reach the container, for the status; undefined without an agent or before the first. */
  get agentMode(): "resident" | "fallback" | undefined {
    if (!this.config.agent) return undefined;
    if (this.config.agent.running) return "resident";
    return this.fallbackUntil > 0 ? "fallback" : undefined;
  }

  async readFile(path: string, options: FileOperationOptions = {}): Promise<Response> {
    return (await this.open("read", path, options, false)).response;
  }

  async writeFile(path: string, content: FileContent, options: FileOperationOptions = {}): Promise<void> {
    const target = this.resolve(path, options, []);
    await this.pipeIn("write", [target], content, options, "writeFile", path);
  }

  async stat(path: string, options: FileOperationOptions = {}): Promise<SandboxFileStat> {
    return toStat(await this.runJson("stat", [this.resolve(path, options, [])], options, "stat", path));
  }

  async lstat(path: string, options: FileOperationOptions = {}): Promise<SandboxFileStat> {
    return toStat(await this.runJson("lstat", [this.resolve(path, options, [])], options, "lstat", path));
  }

  async readDirectory(path: string, options: FileOperationOptions = {}): Promise<SandboxDirectoryEntry[]> {
    const target = this.resolve(path, options, []);
    const { entries } = await this.runJson("readdir", [target], options, "readDirectory", path);
    return entries;
  }

  async mkdir(path: string, options: MkdirOptions = {}): Promise<void> {
    const target = this.resolve(path, options, ["recursive"]);
    await this.act("mkdir", [target, flag(options.recursive)], options, "mkdir", path);
  }

  async rename(source: string, destination: string, options: FileOperationOptions = {}): Promise<void> {
    const from = this.resolve(source, options, []);
    const to = this.resolve(destination, options, []);
    await this.act("rename", [from, to, "0"], options, "rename", source, destination);
  }

  async remove(path: string, options: RemoveOptions = {}): Promise<void> {
    const target = this.resolve(path, options, ["recursive", "force"]);
    await this.act("remove", [target, flag(options.recursive), flag(options.force)], options, "remove", path);
  }

  // Extensions: not in the 1.x class.

  /** `readDirectory` plus lstat metadata for every entry, in one process. */
  async listDirectory(path: string, options: FileOperationOptions = {}): Promise<SandboxDirectoryListing> {
    return parsedAnswer("list", new TextDecoder().decode(await this.listDirectoryJson(path, options)));
  }

  /**
   * `listDirectory`'s answer as the JSON bytes the container wrote, unparsed:
   * a route hands a listing of 10,000 entries on without parsing and
   * encoding it again (~10 ms of the Durable Object's time).
   */
  async listDirectoryJson(path: string, options: FileOperationOptions = {}): Promise<Uint8Array> {
    const target = this.resolve(path, options, []);
    options.signal?.throwIfAborted();
    const viaAgent = await this.viaAgent(options, ["readDirectory", path], (agent) =>
      agent.callForBytes("list", [target], agentOptions(options)),
    );
    if (viaAgent) return viaAgent.answer;
    return new TextEncoder().encode(await this.run("list", [target], options, "readDirectory", path));
  }

  /**
   * `readFile` plus the stat of the opened file, in one process: the stat
   * describes exactly the file whose bytes are streamed.
   */
  async readFileWithStat(
    path: string,
    options: FileOperationOptions = {},
  ): Promise<{ response: Response; stat: SandboxFileStat }> {
    const { response, stat } = await this.open("read", path, options, true);
    return { response, stat: stat as SandboxFileStat };
  }

  /**
   * The folder at `path` (links followed, within `confineTo`) as a `.tar.gz`
   * stream from `tar` run in it. Resolves once the folder is open; errors
   * before that reject like `readFile`. tar's own warnings (a file that
   * changed while it was read) do not fail the stream.
   */
  async archiveDirectory(path: string, options: FileOperationOptions = {}): Promise<Response> {
    return (await this.open("archive", path, options, false)).response;
  }

  /** `rename` that refuses an existing destination with EEXIST instead of replacing it. */
  async renameNoReplace(source: string, destination: string, options: FileOperationOptions = {}): Promise<void> {
    const from = this.resolve(source, options, []);
    const to = this.resolve(destination, options, []);
    await this.act("rename", [from, to, "1"], options, "rename", source, destination);
  }

  /** Writes `content` at byte `offset` (0 truncates first): one chunk of a resumable upload. */
  async writeFileAt(
    path: string,
    offset: number,
    content: FileContent,
    options: FileOperationOptions = {},
  ): Promise<SandboxFileStat> {
    const target = this.resolve(path, options, []);
    return toStat(await this.pipeIn("write-at", [target, String(offset)], content, options, "writeFile", path));
  }

  /**
   * Renames `temp` onto `destination` when the destination's etag still equals
   * `expectedEtag` ("" = no check), in one process, so a compare-and-save has
   * no window for another writer. ESTALE when it changed. Returns the new stat.
   */
  async commit(
    temp: string,
    destination: string,
    expectedEtag: string,
    options: FileOperationOptions = {},
  ): Promise<SandboxFileStat> {
    const from = this.resolve(temp, options, []);
    const to = this.resolve(destination, options, []);
    return toStat(await this.runJson("commit", [from, to, expectedEtag], options, "rename", destination, temp));
  }

  /**
   * Ours: writes `content` to `temp`, then `commit`s it onto `destination`, in one process.
   * `length`: the content's size when the caller knows it (a request's Content-Length), for the save journal.
   */
  async saveAtomically(
    temp: string,
    destination: string,
    expectedEtag: string,
    content: FileContent,
    options: FileOperationOptions & { length?: number } = {},
  ): Promise<SandboxFileStat> {
    const from = this.resolve(temp, options, ["length"]);
    const to = this.resolve(destination, options, ["length"]);
    return toStat(await this.pipeIn("save", [from, to, expectedEtag], content, options, "writeFile", destination));
  }

  // Internals

  private async open(
    op: "read" | "archive",
    path: string,
    options: FileOperationOptions,
    withStat: boolean,
  ): Promise<{ response: Response; stat?: SandboxFileStat }> {
    const target = this.resolve(path, options, []);
    const args: AgentStreams["read"]["args"] = withStat ? [target, "stat"] : [target];
    const agent = op === "read" ? await this.agentFor(options) : undefined;
    if (agent) {
      try {
        const { head, body } = await agent.open("read", args, agentOptions(options));
        if (withStat && !head) throw SandboxProtocolError.create("the agent sent no stat for a read with stat");
        return {
          response: new Response(
            mapError(body, (error) => agentFailure(error, "readFile", path)),
            { status: 200 },
          ),
          ...(head ? { stat: toStat(head) } : {}),
        };
      } catch (error) {
        throw agentFailure(error, "readFile", path);
      }
    }
    const proc = await this.spawn(op, args, options);
    const stdout = proc.stdout;
    if (!stdout) throw SandboxProtocolError.create("the helper has no stdout");
    // Drain stderr from the start: it carries the error, and an unread pipe can stall the process.
    const stderr = proc.stderr ? new Response(proc.stderr).text() : Promise.resolve("");
    const reader = stdout.getReader();
    // The helper writes one 0x01 byte once the file is open (then a stat line when asked).
    let head: Uint8Array = new Uint8Array(0);
    let headerEnd = -1;
    while (headerEnd === -1) {
      const next = await reader.read();
      if (next.done) {
        if (head.byteLength === 0) throw await this.failure(proc, stderr, "readFile", path);
        throw SandboxProtocolError.create("the helper ended before its header");
      }
      head = concatBytes([head, next.value as Uint8Array]);
      if (head.byteLength > 0 && !withStat) headerEnd = 1;
      else if (withStat) {
        const newline = head.indexOf(10);
        if (newline !== -1) headerEnd = newline + 1;
      }
    }
    const stat = withStat ? toStat(JSON.parse(new TextDecoder().decode(head.subarray(1, headerEnd - 1)))) : undefined;
    const rest = head.subarray(headerEnd);
    const fail = (code: number) => this.failure(proc, stderr, "readFile", path, code);
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
    return { response: new Response(body, { status: 200 }), stat };
  }

  private resolve(path: string, options: object, extra: string[]): string {
    for (const key of Object.keys(options)) {
      if (!KNOWN_OPTIONS.has(key) && !extra.includes(key)) throw new TypeError(`Unknown option ${key}`);
    }
    const { cwd, user } = options as FileOperationOptions;
    if (typeof path !== "string" || path === "") throw new TypeError("path must be a non-empty string");
    if (path.includes("\0")) throw new TypeError("path must not contain a null character");
    if (user !== undefined && !/^\d+:\d+$/.test(user)) throw new TypeError('user must be "uid:gid"');
    if (path.startsWith("/")) return path;
    if (cwd === undefined) throw new TypeError("cwd is required when path is relative");
    if (!cwd.startsWith("/") || cwd.includes("\0")) throw new TypeError("cwd must be an absolute path");
    return `${cwd.replace(/\/+$/, "")}/${path}`;
  }

  private spawn(op: string, args: string[], options: FileOperationOptions, stdin?: ReadableStream<Uint8Array>) {
    return this.sandbox.exec(["python3", "-c", HELPER_SCRIPT, op, this.config.confineTo ?? "", ...args], {
      cwd: "/",
      ...(stdin ? { stdin } : {}),
      ...(options.user ? { user: options.user } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  private async run(
    op: string,
    args: string[],
    options: FileOperationOptions,
    operation: FileOperation,
    path: string,
    destination?: string,
  ): Promise<string> {
    options.signal?.throwIfAborted();
    const proc = await this.spawn(op, args, options);
    const output = await proc.output();
    if (output.exitCode !== 0) {
      throw parseFailure(new TextDecoder().decode(output.stderr), operation, path, destination, output.exitCode);
    }
    return new TextDecoder().decode(output.stdout);
  }

  /** Runs `op` for its effect alone (no answer). */
  private async act<Op extends "mkdir" | "rename" | "remove">(
    op: Op,
    args: AgentCalls[Op]["args"],
    options: FileOperationOptions,
    operation: FileOperation,
    path: string,
    destination?: string,
  ): Promise<void> {
    options.signal?.throwIfAborted();
    const viaAgent = await this.viaAgent(options, [operation, path, destination], (agent) =>
      agent.call(op, args, agentOptions(options)),
    );
    if (viaAgent) return;
    await this.run(op, args, options, operation, path, destination);
  }

  /**
   * The agent's answer (what `ask` got from it), or undefined when the per-call helper must answer instead.
   * Its refusal is reported as the helper's would be, for `operation` on `path`.
   */
  private async viaAgent<T>(
    options: FileOperationOptions,
    [operation, path, destination]: [FileOperation, string, string?],
    ask: (agent: AgentClient) => Promise<T>,
  ): Promise<{ answer: T } | undefined> {
    const agent = await this.agentFor(options);
    if (!agent) return undefined;
    try {
      return { answer: await ask(agent) };
    } catch (error) {
      throw agentFailure(error, operation, path, destination);
    }
  }

  /** The agent when it runs or starts; undefined (logged) when it cannot, so the helper answers. */
  private async agentFor(options: FileOperationOptions): Promise<AgentClient | undefined> {
    const agent = this.config.agent;
    if (!agent || options.user !== undefined || Date.now() < this.fallbackUntil) return undefined;
    try {
      await agent.start();
      this.fallbackUntil = 0;
      return agent;
    } catch (error) {
      // A container that does not run (yet): the helper's exec wakes it or says why not, as before.
      if (!(error instanceof AgentUnavailableError)) return undefined;
      console.error(
        `files: ${error.message}; each file operation starts its own process until it does (tried again in ${AGENT_RETRY_MS / 1000} s)`,
      );
      this.fallbackUntil = Date.now() + AGENT_RETRY_MS;
      return undefined;
    }
  }

  /** Runs `op` to its answer, typed by the table of operations: from the agent, or parsed from the helper's output. */
  private async runJson<Op extends "stat" | "lstat" | "readdir" | "commit">(
    op: Op,
    args: AgentCalls[Op]["args"],
    options: FileOperationOptions,
    operation: FileOperation,
    path: string,
    destination?: string,
  ): Promise<AgentCalls[Op]["result"]> {
    options.signal?.throwIfAborted();
    const viaAgent = await this.viaAgent(options, [operation, path, destination], (agent) =>
      agent.call(op, args, agentOptions(options)),
    );
    if (viaAgent) return viaAgent.answer;
    return parsedAnswer(op, await this.run(op, args, options, operation, path, destination));
  }

  /** Runs `op` with `content` as its body (the helper's stdin), to its answer. */
  private async pipeIn<Op extends "write" | "write-at" | "save">(
    op: Op,
    args: AgentCalls[Op]["args"],
    content: FileContent,
    options: FileOperationOptions,
    operation: FileOperation,
    path: string,
  ): Promise<AgentCalls[Op]["result"]> {
    options.signal?.throwIfAborted();
    if (this.config.agent) {
      const viaAgent = await this.viaAgent(options, [operation, path], (agent) =>
        agent.call(op, args, { ...agentOptions(options), body: toStream(content) }),
      );
      if (viaAgent) return viaAgent.answer;
    }
    // The runtime pumps `stdin`; the tap remembers whether the caller's stream failed.
    let streamError: { error: unknown } | undefined;
    const reader = toStream(content).getReader();
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
    if (output.exitCode !== 0) {
      throw parseFailure(new TextDecoder().decode(output.stderr), operation, path, undefined, output.exitCode);
    }
    return parsedAnswer(op, new TextDecoder().decode(output.stdout));
  }

  private async failure(
    proc: SandboxProcess,
    stderr: Promise<string>,
    operation: FileOperation,
    path: string,
    exitCode?: number,
  ) {
    return parseFailure(await stderr, operation, path, undefined, exitCode ?? (await proc.exitCode));
  }
}

function flag(value: boolean | undefined): Flag {
  return value ? "1" : "0";
}

function parseFailure(
  stderr: string,
  operation: FileOperation,
  path: string,
  destination: string | undefined,
  exitCode: number,
) {
  const line = stderr.trim().split("\n").pop() ?? "";
  try {
    const { code, detail } = JSON.parse(line) as { code: string; detail: string };
    if (typeof code === "string" && typeof detail === "string") {
      return SandboxFileError.create({ code, operation, path, detail, ...(destination ? { destination } : {}) });
    }
  } catch {
    // fall through
  }
  return SandboxProtocolError.create(`exit code ${exitCode}: ${stderr.trim().slice(0, 300) || "no output"}`);
}

function toStat(raw: AgentStat): SandboxFileStat {
  return {
    type: raw.type,
    size: BigInt(raw.size),
    mode: raw.mode,
    uid: raw.uid,
    gid: raw.gid,
    accessedAt: new Date(raw.atimeMs),
    modifiedAt: new Date(raw.mtimeMs),
    changedAt: new Date(raw.ctimeMs),
    etag: raw.etag,
  };
}

function toStream(content: FileContent): ReadableStream<Uint8Array> {
  if (content instanceof ReadableStream) return content;
  if (content instanceof Blob) return content.stream();
  const bytes =
    typeof content === "string"
      ? new TextEncoder().encode(content)
      : content instanceof ArrayBuffer
        ? new Uint8Array(content)
        : new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
  return new ReadableStream({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** An answer to `op` (the helper's output, or a listing's bytes decoded), its JSON parsed, as the table of operations types it. */
function parsedAnswer<Op extends AgentCall>(op: Op, text: string): AgentCalls[Op]["result"] {
  try {
    return JSON.parse(text) as AgentCalls[Op]["result"];
  } catch {
    throw SandboxProtocolError.create(`unreadable answer to ${op}: ${text.slice(0, 200)}`);
  }
}

function agentOptions(options: FileOperationOptions): RequestOptions {
  return options.signal ? { signal: options.signal } : {};
}

/** An agent's refusal as the helper's would be (SandboxFileError); its death as a container that stopped answering. */
function agentFailure(error: unknown, operation: FileOperation, path: string, destination?: string): unknown {
  if (error instanceof AgentRequestError) {
    return SandboxFileError.create({
      code: error.code,
      operation,
      path,
      detail: error.detail,
      ...(destination ? { destination } : {}),
    });
  }
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
