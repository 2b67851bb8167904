import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import { PROCESS_ENV, WORKSPACE_ROOT } from "../sandbox/environment";
import type { ExecOptions, RunResult, Sandbox, SpawnedProcess } from "../sandbox/sandbox";

/**
 * How the IDE's own git commands run: in /workspace, never prompting (no
 * terminal: a prompt would hang the request), never opening an editor or a
 * pager, never looking above /workspace for a repository, and reading every
 * path literally (`*` or `:(glob)` in a name is a name, not a pattern).
 */
export const GIT_ENV: Readonly<Record<string, string>> = {
  ...PROCESS_ENV,
  LANG: "C.UTF-8",
  GIT_TERMINAL_PROMPT: "0",
  GIT_ASKPASS: "",
  SSH_ASKPASS: "",
  GIT_SSH_COMMAND: "ssh -o BatchMode=yes -o ConnectTimeout=30",
  GIT_CEILING_DIRECTORIES: "/",
  GIT_LITERAL_PATHSPECS: "1",
  GIT_EDITOR: "true",
  GIT_PAGER: "cat",
};

/** Reads (status, diff, log) take no optional locks, so they never clash with git running in the terminal. */
const READ_ENV: Readonly<Record<string, string>> = { ...GIT_ENV, GIT_OPTIONAL_LOCKS: "0" };

/** git's own messages are shown up to this length. */
const MESSAGE_LIMIT = 4000;

export interface GitRunOptions {
  /** Text for git's stdin (a commit message, NUL-separated paths). */
  input?: string;
  /** A read: no optional locks. */
  read?: boolean;
  /**
   * Start or wake the container first. False by default: a read (a GET) never
   * wakes a workspace, and a change wakes it once, before its first git command.
   */
  wake?: boolean;
}

/** git in the workspace's container, as the source control routes run it. */
export class GitCli {
  constructor(private readonly sandbox: Pick<Sandbox, "run" | "spawn">) {}

  /** Runs `git ARGS` (or, with `shell`, a `sh -c` script whose "$@" are ARGS) to completion. */
  run(args: readonly string[], options: GitRunOptions = {}): Promise<RunResult> {
    return this.sandbox.run(["git", ...args], this.execOptions(options));
  }

  /** A `sh -c` script run in the same environment, for the few steps that pipe git into git. */
  script(script: string, args: readonly string[], options: GitRunOptions = {}): Promise<RunResult> {
    return this.sandbox.run(["sh", "-c", script, "sh", ...args], this.execOptions(options));
  }

  /** Runs git and answers its stdout; a failure becomes an AppError with git's own message. */
  async ok(args: readonly string[], options: GitRunOptions = {}): Promise<string> {
    const result = await this.run(args, options);
    if (result.exitCode !== 0) throw gitFailure(result);
    return result.stdout;
  }

  /** A long-running git (pull, push, fetch) whose output is streamed. */
  spawn(args: readonly string[]): Promise<SpawnedProcess> {
    return this.sandbox.spawn(["git", ...args], { ...this.execOptions({}), stdout: "pipe", stderr: "pipe" });
  }

  private execOptions({ input, read = false, wake = false }: GitRunOptions): ExecOptions {
    return {
      cwd: WORKSPACE_ROOT,
      env: read ? READ_ENV : GIT_ENV,
      wake,
      ...(input === undefined ? {} : { stdin: new Blob([input]).stream() }),
    };
  }
}

/** Whether git said there is no repository here. */
export function isNotARepository(result: Pick<RunResult, "stderr">): boolean {
  return /not a git repository/i.test(result.stderr);
}

/** git's refusal as an AppError: its own words (stderr, or stdout where git writes them, as commit does). */
export function gitFailure(result: RunResult): AppError {
  if (isNotARepository(result)) {
    return new AppError(ErrorCode.NOT_A_REPOSITORY, "/workspace is not a Git repository: initialize it first.");
  }
  return new AppError(ErrorCode.GIT_REFUSED, gitMessage(result));
}

/** What git printed about a failure, trimmed to a readable length. */
export function gitMessage(result: Pick<RunResult, "stdout" | "stderr" | "exitCode">): string {
  const text = (result.stderr.trim() || result.stdout.trim() || `git exited with ${result.exitCode}`).trim();
  return text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT)}…` : text;
}
