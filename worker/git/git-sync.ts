import { ErrorCode } from "../../protocol/errors";
import type { GitSyncEvent } from "../../protocol/git";
import { AppError, describe } from "../errors";
import type { GitCli } from "./git-cli";
import type { SourceControl } from "./source-control";

export type SyncKind = "pull" | "push" | "fetch";

/** git's progress lines ("Receiving objects:  45% (9/20)"), as opposed to what it says. */
const PROGRESS =
  /^(remote: )?(Enumerating|Counting|Compressing|Writing|Receiving|Resolving|Unpacking|Total|Finding|Checking out|Updating files)\b|\d+% \(\d+\/\d+\)/;
/** At most one progress line per this many ms (git redraws its counters far more often). */
const PROGRESS_GAP_MS = 100;
/** What git said last, for the error message of a failure. */
const KEPT_LINES = 40;

/**
 * The arguments of `git pull`, `push` or `fetch`. A push of a branch without
 * an upstream sets one (`--set-upstream REMOTE HEAD`) on `origin`, or on the
 * only remote; with no remote at all it is refused with what to do.
 */
export async function syncArgs(kind: SyncKind, remote: string | undefined, scm: SourceControl): Promise<string[]> {
  await scm.requireRepository();
  const named = remote === undefined ? [] : [remote];
  if (kind === "fetch") return ["fetch", "--progress", "--prune", ...named];
  if (kind === "pull") return ["pull", "--progress", ...named];
  const upstream = await scm.upstream();
  if (upstream && remote === undefined) return ["push", "--progress"];
  const remotes = await scm.remotes();
  const target = remote ?? (remotes.includes("origin") ? "origin" : remotes.length === 1 ? remotes[0] : undefined);
  if (!target) {
    throw new AppError(
      ErrorCode.GIT_REFUSED,
      remotes.length === 0
        ? "This repository has no remote to push to. Add one in the terminal: git remote add origin URL"
        : `This branch has no upstream and there are several remotes (${remotes.join(", ")}): choose one.`,
    );
  }
  return ["push", "--progress", ...(upstream ? [] : ["--set-upstream"]), target, "HEAD"];
}

/**
 * Runs a long git command and streams what it prints as newline-delimited
 * JSON (GitSyncEvent): progress lines, other lines, then `done` or `error`
 * with git's own last words. `hold` keeps the disk shared until git ends (a
 * save waits for it). A client that goes away does not stop git: a dropped
 * connection (a laptop changing networks) must not cut a pull off halfway;
 * the panel learns the outcome from the repository itself.
 */
export function streamGit(git: GitCli, args: string[], hold: <T>(operation: () => Promise<T>) => Promise<T>): Response {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  let gone = false;
  const send = (event: GitSyncEvent) => {
    if (gone) return;
    writer.write(encoder.encode(`${JSON.stringify(event)}\n`)).catch(() => {
      // The client went away; git goes on (see above).
      gone = true;
    });
  };
  void hold(async () => {
    const said: string[] = [];
    let lastProgress = 0;
    const line = (text: string, fromStderr: boolean) => {
      if (text.trim() === "") return;
      if (fromStderr && PROGRESS.test(text)) {
        const now = Date.now();
        // Always pass the last redraw of a counter ("done."), else at most one per gap.
        if (now - lastProgress < PROGRESS_GAP_MS && !/done\.?\s*$|100%/.test(text)) return;
        lastProgress = now;
        send({ type: "progress", text });
        return;
      }
      said.push(text);
      if (said.length > KEPT_LINES) said.shift();
      send({ type: "output", text });
    };
    try {
      const process = await git.spawn(args);
      await Promise.all([
        readLines(process.stdout, (t) => line(t, false)),
        readLines(process.stderr, (t) => line(t, true)),
      ]);
      const exitCode = await process.exitCode;
      if (exitCode === 0) send({ type: "done" });
      else {
        const message = said.join("\n").trim() || `git ${args[0]} exited with ${exitCode}`;
        send({ type: "error", code: ErrorCode.GIT_REFUSED, message });
      }
    } catch (error) {
      send({
        type: "error",
        code: ErrorCode.CONTAINER_UNAVAILABLE,
        message: `git ${args[0]} failed: ${describe(error)}`,
      });
    } finally {
      await writer.close().catch(() => {});
    }
  });
  return new Response(readable, {
    headers: {
      "Content-Type": "application/x-ndjson; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Accel-Buffering": "no",
    },
  });
}

/** Calls `onLine` for each line of a stream; a carriage return ends a line too (git redraws progress with it). */
async function readLines(stream: ReadableStream<Uint8Array> | undefined | null, onLine: (text: string) => void) {
  if (!stream) return;
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk, { stream: true });
    const parts = buffer.split(/\r\n|\r|\n/);
    buffer = parts.pop() ?? "";
    for (const part of parts) onLine(part);
  }
  buffer += decoder.decode();
  if (buffer) onLine(buffer);
}
