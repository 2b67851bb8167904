import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import { containerPath } from "../files/workspace-path";
import { SHELL_ENV } from "../sandbox/environment";
import type { Sandbox } from "../sandbox/sandbox";
import type { WorkspaceFiles } from "./file-tools";
import type { ToolOutput } from "./tool-output";

/** A command's output beyond this is cut to its last this-many bytes (the answer says so). */
export const COMMAND_OUTPUT_MAX_BYTES = 30_000;
/** After the timeout's TERM, a command that is still there gets KILL this much later. */
const KILL_AFTER_SECONDS = 5;
/** `timeout --kill-after=$1 $2 bash -lc $3`, stderr into stdout (exec: same process, so it can still be signalled). */
const RUN = 'exec timeout --kill-after="$1" "$2" bash -lc "$3" 2>&1';

export interface CommandRequest {
  command: string;
  cwd: string;
  timeoutSeconds: number;
}

/**
 * Runs a command the way the seed's sandbox agent does: `timeout
 * --kill-after` around `bash -lc`, so the command and every process it
 * started (timeout signals its whole process group) end at the timeout. Only
 * the last {@link COMMAND_OUTPUT_MAX_BYTES} of its output are kept while it
 * runs, so a flood costs no memory. The working folder is checked through
 * the files layer first (inside /workspace, links included).
 */
export async function runCommand(
  sandbox: Sandbox,
  files: WorkspaceFiles,
  { command, cwd, timeoutSeconds }: CommandRequest,
  signal: AbortSignal,
): Promise<ToolOutput> {
  const folder = files.checkPath(cwd);
  const stat = await files.attempt(() => files.files.stat(containerPath(folder)), folder);
  if (stat.type !== "directory") throw new AppError(ErrorCode.NOT_A_DIRECTORY, `cwd "${folder}" is not a folder.`);
  signal.throwIfAborted();
  const started = Date.now();
  // stderr goes into stdout's pipe inside the container, so the two keep the order they were written in.
  const process = await sandbox.spawn(
    ["sh", "-c", RUN, "sh", String(KILL_AFTER_SECONDS), String(timeoutSeconds), command],
    { cwd: containerPath(folder), env: { ...SHELL_ENV, TERM: "dumb" }, stderr: "combined" },
  );
  // A revoked token or a client that went away ends the command too.
  const stop = () => void process.kill("TERM");
  signal.addEventListener("abort", stop, { once: true });
  try {
    const output = await keepTail(process.stdout as ReadableStream<Uint8Array>, COMMAND_OUTPUT_MAX_BYTES);
    const exitCode = await process.exitCode;
    const seconds = (Date.now() - started) / 1000;
    signal.throwIfAborted();
    const timedOut = (exitCode === 124 || exitCode === 137) && seconds >= timeoutSeconds;
    const status = timedOut
      ? `Killed after the ${timeoutSeconds} s timeout (exit code ${exitCode}).`
      : `Exit code ${exitCode}.`;
    const notes = [status];
    if (output.total > output.kept.byteLength) {
      notes.push(
        `[output truncated: ${output.total} bytes in all, only the last ${output.kept.byteLength} are shown; redirect to a file and read it in ranges to see more]`,
      );
    }
    return [new TextDecoder().decode(output.kept), notes.join("\n")];
  } finally {
    signal.removeEventListener("abort", stop);
  }
}

/** Reads a stream to its end, keeping only its last `max` bytes and counting them all. */
export async function keepTail(
  stream: ReadableStream<Uint8Array>,
  max: number,
): Promise<{ kept: Uint8Array; total: number }> {
  const chunks: Uint8Array[] = [];
  let held = 0;
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    chunks.push(value);
    held += value.byteLength;
    // Drop whole chunks that lie entirely before the last `max` bytes.
    while (chunks.length > 1 && held - (chunks[0] as Uint8Array).byteLength >= max) {
      held -= (chunks.shift() as Uint8Array).byteLength;
    }
  }
  const all = new Uint8Array(held);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return { kept: all.subarray(Math.max(0, held - max)), total };
}
