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

/** `cloud-ide tunnel ID` as a command line ssh can run (node and this script, by absolute path). */
export function proxyCommand(workspaceId) {
  const quote = (text) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`);
  return `${quote(process.execPath)} ${quote(SCRIPT)} tunnel ${workspaceId}`;
}

/** The host name ssh knows a workspace by. */
export function hostAlias(workspaceId) {
  return `cloud-ide-${workspaceId}`;
}

/** ssh's options for a workspace: its key, the tunnel, its known_hosts entry. */
export function sshOptions(workspaceId, key) {
  return [
    "-i",
    key,
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    `ProxyCommand=${proxyCommand(workspaceId)}`,
    "-o",
    `HostKeyAlias=${hostAlias(workspaceId)}`,
    "-o",
    `UserKnownHostsFile=${join(configDir(), "known_hosts")}`,
    "-o",
    "StrictHostKeyChecking=accept-new",
    "-o",
    "User=root",
  ];
}
