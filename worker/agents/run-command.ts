import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import { containerPath } from "../files/workspace-path";
import { SHELL_ENV, WORKSPACE_ROOT } from "../sandbox/environment";
import type { Sandbox } from "../sandbox/sandbox";
import type { WorkspaceFiles } from "./file-tools";
import type { ToolOutput } from "./tool-output";

/** A command's output beyond this is cut to its last this-many bytes (the answer says so). */
export const COMMAND_OUTPUT_MAX_BYTES = 30_000;
/** After the timeout's TERM, a command that is still there gets KILL this much later. */
const KILL_AFTER_SECONDS = 5;
/**
 * In the folder $4 (checked here, in the same exec as the command: a
 * separate check cost a second process start), `timeout --kill-after=$1 $2
 * bash -lc $3`, stderr into stdout (exec: same process, so it can still be
 * signalled). A folder that is not one, or resolves outside /workspace, is
 * answered as the line `$5 REASON` (a fresh nonce) and nothing runs. The
 * check is for a clear error, not a boundary: the command itself runs as
 * root in the container and may go anywhere in it.
 */
const RUN = `[ -e "$4" ] || { echo "$5 missing"; exit 0; }
[ -d "$4" ] || { echo "$5 not-a-folder"; exit 0; }
cd -P -- "$4" || { echo "$5 missing"; exit 0; }
case "$(pwd -P)" in ${WORKSPACE_ROOT}|${WORKSPACE_ROOT}/*) ;; *) echo "$5 outside"; exit 0;; esac
exec timeout --kill-after="$1" "$2" bash -lc "$3" 2>&1`;

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
 * runs, so a flood costs no memory. The working folder's path is checked as
 * the files API checks paths, then where it resolves (links included) in the
 * command's own exec.
 */
export async function runCommand(
  sandbox: Sandbox,
  files: WorkspaceFiles,
  { command, cwd, timeoutSeconds }: CommandRequest,
  signal: AbortSignal,
): Promise<ToolOutput> {
  const folder = files.checkPath(cwd);
  signal.throwIfAborted();
  const nonce = `cloud-ide-cwd-${crypto.randomUUID()}`;
  const started = Date.now();
  // stderr goes into stdout's pipe inside the container, so the two keep the order they were written in.
  // A revoked token or a client that went away (`signal`) ends the command too.
  const process = await sandbox.command(
    ["sh", "-c", RUN, "sh", String(KILL_AFTER_SECONDS), String(timeoutSeconds), command, containerPath(folder), nonce],
    { env: { ...SHELL_ENV, TERM: "dumb" }, signal },
  );
  const output = await keepTail(process.output, COMMAND_OUTPUT_MAX_BYTES);
  const exitCode = await process.exitCode;
  folderProblem(new TextDecoder().decode(output.kept.subarray(0, 200)), nonce, folder);
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
}

/** The check's answer (the script's first line with the nonce) as the files API's error for that folder. */
function folderProblem(head: string, nonce: string, folder: string): void {
  if (!head.startsWith(`${nonce} `)) return;
  const reason = head.slice(nonce.length + 1).trim();
  if (reason === "outside")
    throw new AppError(ErrorCode.PATH_OUTSIDE_WORKSPACE, `cwd "${folder}" resolves outside /workspace.`);
  if (reason === "not-a-folder") throw new AppError(ErrorCode.NOT_A_DIRECTORY, `cwd "${folder}" is not a folder.`);
  throw new AppError(ErrorCode.FILE_NOT_FOUND, `cwd "${folder}" does not exist.`);
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
