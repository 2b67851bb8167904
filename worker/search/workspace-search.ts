import { ErrorCode } from "../../protocol/errors";
import {
  FILE_INDEX_MAX,
  type FileIndex,
  SEARCH_MAX_BYTES,
  SEARCH_MAX_RANGES,
  SEARCH_MAX_SECONDS,
  SEARCH_PREVIEW_CHARS,
  type SearchQuery,
} from "../../protocol/search";
import { AppError } from "../errors";
import { PROCESS_ENV, WORKSPACE_ROOT } from "../sandbox/environment";
import type { Sandbox, SpawnedProcess } from "../sandbox/sandbox";
import { checkArgs, fileIndexArgs, globCheckArgs, ripgrepArgs } from "./search-query";
import { SEARCH_SCRIPT } from "./search-script";

/** How long past the time limit a search that has not ended is killed from here. */
const WATCHDOG_GRACE_SECONDS = 5;
/** Characters of a preview kept before the first match. */
const PREVIEW_BEFORE = 40;

/**
 * Search in files and the file index of one workspace: ripgrep in the
 * container, through the sandbox adapter. A search's output streams to the
 * client as ripgrep finds matches. ripgrep is killed in the container when
 * the response stream is cancelled, when the same `client` key starts a new
 * search or cancels (a closed connection does not always reach a Worker: see
 * workerd#4185), and at the time limit.
 */
export class WorkspaceSearch {
  /** The running search of each client key (a page), so a new query ends the old one. */
  private readonly byClient = new Map<string, SpawnedProcess>();

  constructor(private readonly sandbox: Pick<Sandbox, "spawn" | "command">) {}

  /**
   * Starts a search; resolves once its first line is known, so a query
   * ripgrep refuses answers 400 INVALID_SEARCH instead of an empty stream.
   */
  async search(query: SearchQuery, client?: string): Promise<Response> {
    if (client)
      void this.byClient
        .get(client)
        ?.kill()
        .catch(() => {});
    const config = {
      argv: ripgrepArgs(query),
      // Only a regular expression or a glob can be refused; a literal search starts at once.
      ...(query.regex || query.include?.length || query.exclude?.length ? { check: checkArgs(query) } : {}),
      ...(query.include?.length || query.exclude?.length ? { checkGlobs: globCheckArgs(query) } : {}),
      maxResults: query.maxResults,
      maxBytes: SEARCH_MAX_BYTES,
      seconds: SEARCH_MAX_SECONDS,
      preview: SEARCH_PREVIEW_CHARS,
      before: PREVIEW_BEFORE,
      maxRanges: SEARCH_MAX_RANGES,
    };
    const process = await this.sandbox.spawn(["python3", "-S", "-c", SEARCH_SCRIPT, JSON.stringify(config)], {
      cwd: WORKSPACE_ROOT,
      env: PROCESS_ENV,
      stderr: "ignore",
    });
    if (client) this.track(client, process);
    const reader = (process.stdout as ReadableStream<Uint8Array>).getReader();
    let first: Uint8Array;
    try {
      first = await firstLine(reader);
    } catch (error) {
      void process.kill();
      throw error;
    }
    // The helper's first line (start, or why not) is for us: the client gets what follows it.
    first = first.subarray(refuseFailure(first, () => void process.kill()));
    let ended = false;
    const end = () => {
      clearTimeout(watchdog);
      if (ended) return;
      ended = true;
      void reader.cancel().catch(() => {});
      void process.kill();
    };
    // The helper stops itself at the time limit, unless it is stuck writing to a reader that stopped
    // reading (and whose going away never reached us): then it is killed here.
    const watchdog = setTimeout(end, (SEARCH_MAX_SECONDS + WATCHDOG_GRACE_SECONDS) * 1000);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        if (first.length > 0) controller.enqueue(first);
      },
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            ended = true;
            clearTimeout(watchdog);
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          end();
          controller.error(error);
        }
      },
      // The client went away (a new query, a closed page): ripgrep must not run on.
      cancel: end,
    });
    return new Response(body, {
      headers: {
        "Content-Type": "application/x-ndjson; charset=utf-8",
        "Cache-Control": "no-store",
        "X-Accel-Buffering": "no",
      },
    });
  }

  /** Ends a client's running search, if any (ripgrep is killed). */
  cancel(client: string): void {
    // A container that stopped meanwhile took ripgrep with it.
    void this.byClient
      .get(client)
      ?.kill()
      .catch(() => {});
  }

  /**
   * Every file search would look in (`rg --files`, the same ignore rules), at
   * most FILE_INDEX_MAX. Through the resident agent (Sandbox.command): quick
   * open asks for it each time it opens, and a process start through exec is
   * most of its time on a small workspace.
   */
  async fileIndex(): Promise<FileIndex> {
    const stop = new AbortController();
    // In /workspace, and ripgrep's complaints (an unreadable folder) kept out of the NUL-separated list.
    const { output, exitCode } = await this.sandbox.command(
      ["sh", "-c", 'cd "$0" && exec "$@" 2>/dev/null', WORKSPACE_ROOT, ...fileIndexArgs()],
      { env: PROCESS_ENV, signal: stop.signal },
    );
    const files: string[] = [];
    const decoder = new TextDecoder();
    let rest = "";
    let limitHit = false;
    const reader = output.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const parts = (rest + decoder.decode(value, { stream: true })).split("\0");
      rest = parts.pop() ?? "";
      for (const part of parts) files.push(part.startsWith("./") ? part.slice(2) : part);
      if (files.length > FILE_INDEX_MAX) {
        limitHit = true;
        files.length = FILE_INDEX_MAX;
        stop.abort();
        void reader.cancel().catch(() => {});
        break;
      }
    }
    if (!limitHit && (await exitCode) === 127) throw ripgrepMissing();
    return limitHit ? { files, limitHit } : { files };
  }

  private track(client: string, process: SpawnedProcess): void {
    this.byClient.set(client, process);
    const forget = () => {
      if (this.byClient.get(client) === process) this.byClient.delete(client);
    };
    process.exitCode.then(forget, forget);
  }
}

/** Reads up to and including the first newline; what came with it stays in the chunk. */
async function firstLine(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error("the search helper ended without a word (is python3 in the image?)");
    chunks.push(value);
    if (value.includes(10)) break;
  }
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}

/** Throws the error the helper's first line reports; otherwise returns where the results begin. */
function refuseFailure(first: Uint8Array, kill: () => void): number {
  const newline = first.indexOf(10);
  const text = new TextDecoder().decode(first.subarray(0, newline));
  if (text === '{"type":"start"}') return newline + 1;
  if (!text.startsWith('{"type":"error"')) {
    kill();
    throw new Error(`the search helper began with ${text.slice(0, 200)}`);
  }
  kill();
  const { kind, message } = JSON.parse(text) as { kind: string; message: string };
  if (kind === "missing") throw ripgrepMissing();
  if (kind === "regex") {
    throw new AppError(
      ErrorCode.INVALID_SEARCH,
      `The regular expression does not compile (ripgrep's syntax): ${message}`,
    );
  }
  if (kind === "glob") {
    throw new AppError(ErrorCode.INVALID_SEARCH, `An include or exclude glob is not valid: ${message}`);
  }
  throw new AppError(ErrorCode.INVALID_SEARCH, `ripgrep refused the search: ${message}`);
}

function ripgrepMissing(): AppError {
  return new AppError(
    ErrorCode.INVALID_STATE,
    "ripgrep is not installed in this workspace's container (it was saved before search came): run `apt-get install -y ripgrep` in a terminal.",
  );
}
