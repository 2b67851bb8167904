import { DEFAULT_TERMINAL } from "../../protocol/terminal";
import { SHELL_ENV, WORKSPACE_ROOT } from "../sandbox/environment";
import type { Sandbox } from "../sandbox/sandbox";

/** What a workspace made from a repository is cloned from on its first start. */
export interface RepositorySource {
  url: string;
  branch?: string;
}

/**
 * Starts `git clone` of the source into the (empty) /workspace in the
 * terminal the page opens first, typed there as a person would type it: its
 * progress shows in that terminal, a private repository can ask for a
 * password there, and the command stays in the shell's history to run again.
 * Returns once the command is typed, not when the clone ends.
 */
export async function startClone(sandbox: Sandbox, source: RepositorySource): Promise<void> {
  // During the start: never wake (the start in progress would wait for itself).
  const options = { env: SHELL_ENV, cwd: WORKSPACE_ROOT, wake: false } as const;
  await sandbox.stdout(
    ["tmux", "new-session", "-d", "-s", DEFAULT_TERMINAL, "-c", WORKSPACE_ROOT, "-x", "120", "-y", "32"],
    options,
  );
  const target = `=${DEFAULT_TERMINAL}:`;
  await sandbox.stdout(["tmux", "send-keys", "-t", target, "-l", cloneCommand(source)], options);
  await sandbox.stdout(["tmux", "send-keys", "-t", target, "Enter"], options);
}

/** The shell command, every argument single-quoted (the URL and branch were checked: no spaces, no leading '-'). */
export function cloneCommand({ url, branch }: RepositorySource): string {
  const branchArgs = branch ? `--branch ${quote(branch)} ` : "";
  return `git clone --progress ${branchArgs}-- ${quote(url)} .`;
}

function quote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
