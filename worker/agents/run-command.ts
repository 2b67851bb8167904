import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import type { WorkspaceFiles } from "../files/workspace-files";
import { containerPath } from "../files/workspace-path";
import { SHELL_ENV, WORKSPACE_ROOT } from "../sandbox/environment";
import type { Sandbox } from "../sandbox/sandbox";
import type { ToolOutput } from "./tool-output";

/** A command's output beyond this is cut to its last this-many bytes (the answer says so). */
export const COMMAND_OUTPUT_MAX_BYTES = 30_000;
/** After the timeout's TERM, a command that is still there gets KILL this much later. */
const KILL_AFTER_SECONDS = 5;
/**
 * The login shell's script: in the folder $1 (checked here, in the
 * command's own shell: a separate check cost a process start), the command
 * $3 with no arguments, stderr into stdout (Sandbox.shell). A folder that is
 * not one, or resolves outside /workspace, is answered as the line
 * `$2 REASON` (a fresh nonce) and nothing runs. The check is for a clear
 * error, not a boundary: the command itself runs as root in the container
 * and may go anywhere in it. `cd -P` leaves the resolved folder in $PWD.
 */
const RUN = `[ -e "$1" ] || { echo "$2 missing"; exit 0; }
[ -d "$1" ] || { echo "$2 not-a-folder"; exit 0; }
cd -P -- "$1" || { echo "$2 missing"; exit 0; }
case "$PWD" in ${WORKSPACE_ROOT}|${WORKSPACE_ROOT}/*) ;; *) echo "$2 outside"; exit 0;; esac
eval "shift 3; $3"`;

export interface CommandRequest {
  command: string;
  cwd: string;
  timeoutSeconds: number;
}

/**
 * Runs a command the way the seed's sandbox agent does: `timeout
 * --kill-after` around `bash -lc` (Sandbox.shell), so the command and every
 * process it started (its whole process group) end at the timeout. Only
 * the last {@link COMMAND_OUTPUT_MAX_BYTES} of its output are kept while it
 * runs, so a flood costs no memory. The working folder's path is checked as
 * the files API checks paths, then where it resolves (links included) in the
 * command's own shell.
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
  // A revoked token or a client that went away (`signal`) ends the command too.
  const process = await sandbox.shell(RUN, [containerPath(folder), nonce, command], {
    env: { ...SHELL_ENV, TERM: "dumb" },
    timeoutSeconds,
    killAfterSeconds: KILL_AFTER_SECONDS,
    signal,
  });
  const output = await keepTail(process.output, COMMAND_OUTPUT_MAX_BYTES);
  const exitCode = await process.exitCode;
  folderProblem(new TextDecoder().decode(output.kept.subarray(-200)), nonce, folder);
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

/**
 * The check's answer (the script's last line, with the nonce: only what the
 * login shell's profile printed comes before it) as the files API's error
 * for that folder.
 */
function folderProblem(tail: string, nonce: string, folder: string): void {
  const at = tail.lastIndexOf(`${nonce} `);
  if (at < 0 || (at > 0 && tail[at - 1] !== "\n")) return;
  const reason = tail.slice(at + nonce.length + 1).trim();
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
