// The OpenSSH side: the CLI's own key pair (made with ssh-keygen on first
// use and registered with the IDE), and the options that send ssh through
// `cloud-ide tunnel` (ProxyCommand) with a known_hosts of its own.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { api, CliError, configDir } from "./config.mjs";

const SCRIPT = new URL("../cloud-ide.mjs", import.meta.url).pathname;

export function keyPath() {
  return join(configDir(), "id_ed25519");
}

/** Makes the key pair unless it exists; returns its private key's path. */
export function ensureKeyPair() {
  const key = keyPath();
  if (existsSync(key) && existsSync(`${key}.pub`)) return key;
  mkdirSync(configDir(), { recursive: true, mode: 0o700 });
  const made = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "cloud-ide-cli", "-f", key], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (made.error || made.status !== 0) {
    throw new CliError("ssh-keygen could not make a key: install OpenSSH's client (ssh, ssh-keygen).");
  }
  return key;
}

/** Registers the CLI's public key with the IDE (already registered is fine). */
export async function registerKey(config) {
  const key = ensureKeyPair();
  const publicKey = readFileSync(`${key}.pub`, "utf8").trim();
  try {
    await api(config, "/api/ssh-keys", {
      method: "POST",
      body: { name: `cloud-ide CLI (${process.env.USER ?? "user"}@${hostnameOf()})`, publicKey },
    });
  } catch (error) {
    if (error.code !== "SSH_KEY_EXISTS") throw error;
  }
  return key;
}

function hostnameOf() {
  return process.env.HOSTNAME || spawnSync("hostname", { encoding: "utf8" }).stdout?.trim() || "host";
}

/** One word for sh: as it is when it holds nothing sh would read, else in single quotes. */
export function shellQuote(text) {
  return /^[\w@+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

/**
 * `cloud-ide tunnel ID` as ssh's ProxyCommand (node and this script by
 * absolute path, so it runs without a PATH). ssh reads `%` in it as a token
 * (`%h`, `%p`) before sh sees it: a literal one is written `%%`.
 * @param {string} workspaceId
 * @param {{ node?: string, script?: string }} [paths] the defaults are this node and this CLI
 */
export function proxyCommand(workspaceId, { node = process.execPath, script = SCRIPT } = {}) {
  return [node, script, "tunnel", workspaceId].map(shellQuote).join(" ").replace(/%/g, "%%");
}

/**
 * A file's path as an ssh_config (or `-o`) argument: in double quotes when
 * it holds blanks (else ssh splits it), `%` doubled (ssh expands tokens in
 * IdentityFile and UserKnownHostsFile). ssh_config has no way to write a
 * double quote inside an argument.
 * @param {string} path
 */
export function configPath(path) {
  if (path.includes('"')) {
    throw new CliError(
      `ssh cannot be given a path with a double quote in it (${path}): set XDG_CONFIG_HOME elsewhere.`,
    );
  }
  const escaped = path.replace(/%/g, "%%");
  return /\s/.test(escaped) ? `"${escaped}"` : escaped;
}

/** The host name ssh knows a workspace by. */
export function hostAlias(workspaceId) {
  return `cloud-ide-${workspaceId}`;
}

/**
 * ssh's options for a workspace: its key, the tunnel, its known_hosts entry
 * (in `dir`, the CLI's config folder, read when called).
 * @param {string} workspaceId
 * @param {string} key the private key's path
 * @param {{ dir?: string, node?: string, script?: string }} [where]
 */
export function sshOptions(workspaceId, key, { dir = configDir(), ...paths } = {}) {
  return [
    // Not -i: ssh looks for -i's file under its name as written, then reads `%` tokens in it.
    "-o",
    `IdentityFile=${configPath(key)}`,
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    `ProxyCommand=${proxyCommand(workspaceId, paths)}`,
    "-o",
    `HostKeyAlias=${hostAlias(workspaceId)}`,
    "-o",
    `UserKnownHostsFile=${configPath(join(dir, "known_hosts"))}`,
    "-o",
    "StrictHostKeyChecking=accept-new",
    "-o",
    "User=root",
  ];
}
