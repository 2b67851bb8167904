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

  /**
   * Runs `git ARGS` to completion. git's fatal errors all exit 128; whether
   * one meant "no repository here" is asked of git by its exit status
   * (`rev-parse --git-dir`), never read from its words.
   */
  async run(args: readonly string[], options: GitRunOptions = {}): Promise<GitResult> {
    const result = await this.sandbox.run(["git", ...args], this.execOptions(options));
    if (result.exitCode !== 128) return result;
    const probe = await this.sandbox.run(["git", "rev-parse", "--git-dir"], this.execOptions({ read: true }));
    return probe.exitCode === 0 ? result : { ...result, notARepository: true };
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

/** What a git command answered; `notARepository` when it failed because /workspace is no repository. */
export type GitResult = RunResult & { notARepository?: true };

/** Whether git failed because there is no repository here (GitCli.run found out). */
export function isNotARepository(result: GitResult): boolean {
  return result.notARepository === true;
}

/** git's refusal as an AppError: its own words (stderr, or stdout where git writes them, as commit does). */
export function gitFailure(result: GitResult): AppError {
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
