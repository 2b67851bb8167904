/**
 * Terminals for agents: the same tmux sessions the person's terminal tabs
 * attach to, so a person watches what an agent types and an agent reads
 * what ran there.
 */
import { notFound } from "../errors";
import { SHELL_ENV, WORKSPACE_ROOT } from "../sandbox/environment";
import type { Sandbox } from "../sandbox/sandbox";
import type { ToolOutput } from "./tool-output";

const TMUX = { cwd: WORKSPACE_ROOT, env: SHELL_ENV };

/** tmux's target for the active pane of session `name` exactly (not a prefix of another name). */
function target(name: string): string {
  return `=${name}:`;
}

async function exists(sandbox: Sandbox, name: string): Promise<boolean> {
  return (await sandbox.run(["tmux", "has-session", "-t", `=${name}`], TMUX)).exitCode === 0;
}

/** The screen and `lines` of history above it (`capture-pane -S -N`), wrapped lines joined, trailing blank lines dropped. */
export async function readTerminal(sandbox: Sandbox, name: string, lines: number): Promise<ToolOutput> {
  const result = await sandbox.run(["tmux", "capture-pane", "-p", "-J", "-t", target(name), "-S", `-${lines}`], TMUX);
  if (result.exitCode !== 0) {
    throw notFound(`No terminal "${name}": list_terminals shows the open ones.`);
  }
  const text = result.stdout.replace(/\s+$/, "");
  return text === "" ? [`[terminal ${name} shows nothing yet]`] : text;
}

/**
 * Types `text` literally (`send-keys -l`: key names such as "C-c" stay
 * text), then Enter. A terminal that does not exist is started first, as a
 * tab's would be (a login shell in /workspace), so the person can open it.
 */
export async function sendTerminalInput(
  sandbox: Sandbox,
  name: string,
  text: string,
  enter: boolean,
): Promise<ToolOutput> {
  let created = false;
  if (!(await exists(sandbox, name))) {
    const made = await sandbox.run(
      ["tmux", "new-session", "-d", "-s", name, "-c", WORKSPACE_ROOT, "-x", "120", "-y", "40"],
      TMUX,
    );
    if (made.exitCode !== 0) throw new Error(`tmux new-session: ${made.stderr.trim()}`);
    created = true;
  }
  if (text !== "") {
    const typed = await sandbox.run(["tmux", "send-keys", "-t", target(name), "-l", "--", text], TMUX);
    if (typed.exitCode !== 0) throw new Error(`tmux send-keys: ${typed.stderr.trim()}`);
  }
  if (enter) {
    const pressed = await sandbox.run(["tmux", "send-keys", "-t", target(name), "Enter"], TMUX);
    if (pressed.exitCode !== 0) throw new Error(`tmux send-keys: ${pressed.stderr.trim()}`);
  }
  return `${created ? `Started terminal ${name} and typed` : `Typed`} ${text.length} characters${enter ? " and Enter" : ""} into ${name}. Read its output with read_terminal.`;
}
