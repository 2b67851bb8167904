/**
 * The workspace's own setup recipe: what a person installed outside their
 * files (an apt package, a global npm tool) does not survive a move to a new
 * image, so `.cloud-ide/setup.sh` (or, without it, the `postCreateCommand` of
 * `.devcontainer/devcontainer.json`) runs once, in a terminal named "setup"
 * the person can watch, after each move to a new image and on first start.
 */
import { IDE_STATE_DIR, SHELL_ENV, WORKSPACE_ROOT } from "../sandbox/environment";
import type { Sandbox } from "../sandbox/sandbox";

export const SETUP_TERMINAL = "setup";
/** Written when the recipe ends: its exit code (tests and support read it). */
export const SETUP_RESULT = `${IDE_STATE_DIR}/setup-exit-code`;

/**
 * Prints the command to run, or nothing. devcontainer.json is JSON with
 * comments; its postCreateCommand is a string, an argv array, or an object
 * of named commands (run one after another).
 */
const FIND_RECIPE = `cd ${WORKSPACE_ROOT} || exit 0
if [ -f .cloud-ide/setup.sh ]; then echo "bash .cloud-ide/setup.sh"; exit 0; fi
[ -f .devcontainer/devcontainer.json ] || exit 0
node -e "$1" 2>/dev/null || true`;

/** Run by node with the file's text: prints the shell command. */
const READ_DEVCONTAINER = String.raw`
const text = require("fs").readFileSync(".devcontainer/devcontainer.json", "utf8")
  .replace(/"(?:[^"\]|\.)*"|\/\/[^
]*|\/\*[\s\S]*?\*\//g, (m) => (m[0] === '"' ? m : ""))
  .replace(/,(\s*[}\]])/g, "$1");
const quote = (s) => "'" + String(s).replace(/'/g, "'\''") + "'";
const one = (c) => (Array.isArray(c) ? c.map(quote).join(" ") : String(c));
const command = JSON.parse(text).postCreateCommand;
if (command) {
  const list = typeof command === "object" && !Array.isArray(command) ? Object.values(command) : [command];
  console.log(list.map(one).join(" && "));
}`;

/** Starts the recipe in its own terminal when the workspace has one; true when it did. */
export async function runSetupRecipe(sandbox: Pick<Sandbox, "run" | "stdout">): Promise<boolean> {
  // During a start: never wake (the start in progress would wait for itself).
  const options = { env: SHELL_ENV, cwd: WORKSPACE_ROOT, wake: false } as const;
  const command = (await sandbox.stdout(["bash", "-c", FIND_RECIPE, "find", READ_DEVCONTAINER], options)).trim();
  if (!command) return false;
  const script = `echo "[cloud-ide] Running this workspace's setup recipe: ${command.replace(/["$`\\]/g, "")}"
(${command})
code=$?
mkdir -p ${IDE_STATE_DIR} && echo $code >${SETUP_RESULT}
echo "[cloud-ide] The setup recipe finished (exit $code)."
exec bash -l`;
  await sandbox.run(["tmux", "kill-session", "-t", `=${SETUP_TERMINAL}`], options);
  await sandbox.stdout(
    [
      "tmux",
      "new-session",
      "-d",
      "-s",
      SETUP_TERMINAL,
      "-c",
      WORKSPACE_ROOT,
      "-x",
      "120",
      "-y",
      "32",
      "bash",
      "-lc",
      script,
    ],
    options,
  );
  return true;
}
