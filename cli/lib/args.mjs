// The command line read without acting on it: which command, its help, and
// each command's arguments checked, so that a mistake is told before any
// request is made (and the parsing is testable without an IDE).
import { CliError } from "./config.mjs";

export const COMMAND_NAMES = ["login", "ls", "ssh", "ssh-config", "tunnel", "ports", "open"];

/**
 * What `cloud-ide ARGV...` asks for: a help text (and the exit status after
 * printing it), an unknown command, or a command with its arguments.
 * @param {string[]} argv
 * @returns {{ kind: "help", topic: string, status: number }
 *   | { kind: "unknown", command: string }
 *   | { kind: "run", command: string, args: string[] }}
 */
export function parseCommandLine(argv) {
  const [command, ...args] = argv;
  // No command at all is a mistake (status 1); asking for help is not.
  if (!command) return { kind: "help", topic: "main", status: 1 };
  if (command === "--help" || command === "-h" || command === "help") {
    const topic = args[0] && COMMAND_NAMES.includes(args[0]) ? args[0] : "main";
    return { kind: "help", topic, status: 0 };
  }
  if (!COMMAND_NAMES.includes(command)) return { kind: "unknown", command };
  // --help anywhere before "--" is the command's help; after it, it belongs to the remote command.
  if (beforeDashes(args).some((a) => a === "--help" || a === "-h")) return { kind: "help", topic: command, status: 0 };
  return { kind: "run", command, args };
}

function beforeDashes(args) {
  const split = args.indexOf("--");
  return split === -1 ? args : args.slice(0, split);
}

/**
 * `ssh WORKSPACE [-- COMMAND...]`: the workspace and the remote command
 * (empty: an interactive shell).
 * @param {string[]} args
 * @returns {{ target: string, command: string[] }}
 */
export function parseSshArgs(args) {
  const split = args.indexOf("--");
  const own = split === -1 ? args : args.slice(0, split);
  const command = split === -1 ? [] : args.slice(split + 1);
  const [target, ...extra] = own;
  if (!target) throw new CliError("Name a workspace (an id or a name): cloud-ide ssh WORKSPACE [-- COMMAND...].");
  if (extra.length > 0) {
    throw new CliError(
      `Unexpected "${extra.join(" ")}": put the command after "--" (cloud-ide ssh ${target} -- ${extra.join(" ")}).`,
    );
  }
  return { target, command };
}

/**
 * `ports forward WORKSPACE LOCAL:REMOTE`.
 * @param {string[]} args
 * @returns {{ target: string, local: number, remote: number }}
 */
export function parsePortsArgs(args) {
  const [sub, target, spec, ...extra] = args;
  if (sub !== "forward" || !target || !spec || extra.length > 0) {
    throw new CliError("Usage: cloud-ide ports forward WORKSPACE LOCAL:REMOTE (e.g. 3000:5173)");
  }
  return { target, ...parsePortSpec(spec) };
}

/**
 * `LOCAL:REMOTE`, two TCP port numbers (1-65535).
 * @param {string} spec
 * @returns {{ local: number, remote: number }}
 */
export function parsePortSpec(spec) {
  const match = /^(\d{1,5}):(\d{1,5})$/.exec(spec);
  const local = Number(match?.[1]);
  const remote = Number(match?.[2]);
  if (!match || !isPort(local) || !isPort(remote)) {
    throw new CliError(`"${spec}" is not LOCAL:REMOTE (two port numbers from 1 to 65535, e.g. 3000:5173).`);
  }
  return { local, remote };
}

function isPort(value) {
  return Number.isInteger(value) && value >= 1 && value <= 65535;
}

/**
 * `tunnel WORKSPACE_ID`: an id as `cloud-ide ls` prints it (ssh runs this
 * from its config, where a name could change under it).
 * @param {string[]} args
 * @returns {string}
 */
export function parseTunnelArgs(args) {
  const [id, ...extra] = args;
  if (!id || extra.length > 0) throw new CliError("Usage: cloud-ide tunnel WORKSPACE_ID");
  if (!WORKSPACE_ID.test(id)) {
    throw new CliError(`"${id}" is not a workspace id (lowercase letters and digits): cloud-ide ls lists them.`);
  }
  return id;
}

/** Must agree with protocol/ids.ts's WORKSPACE_ID_PATTERN. */
export const WORKSPACE_ID = /^[a-z0-9]{1,63}$/;

/**
 * `login [URL]` (else CLOUD_IDE_URL): the IDE's origin.
 * @param {string[]} args
 * @param {string | undefined} fallback
 * @returns {string}
 */
export function parseLoginArgs(args, fallback) {
  const url = args[0] ?? fallback;
  if (!url) throw new CliError("Usage: cloud-ide login URL (the IDE's address, e.g. https://ide.example.com)");
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`"${url}" is not a URL: give the IDE's address, e.g. https://ide.example.com.`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new CliError(`"${url}" is not an http(s) address: give the IDE's, e.g. https://ide.example.com.`);
  }
  return parsed.origin;
}
