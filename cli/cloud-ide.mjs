#!/usr/bin/env node
// cloud-ide: the IDE from a command line (Node 20+, no native modules).
// `cloud-ide --help` lists the commands; each has its own --help.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseCommandLine, parseLoginArgs, parsePortsArgs, parseSshArgs, parseTunnelArgs } from "./lib/args.mjs";
import { api, CliError, configDir, loadConfig, saveConfig } from "./lib/config.mjs";
import { helpText } from "./lib/help.mjs";
import { hostAlias, proxyCommand, registerKey, sshOptions } from "./lib/ssh.mjs";
import { hostEntries, mergeSshConfig } from "./lib/ssh-config.mjs";
import { openTunnelSocket, pipeTunnel } from "./lib/tunnel.mjs";

function usage(topic) {
  process.stdout.write(`${helpText(topic)}\n`);
}

async function resolveWorkspace(config, nameOrId) {
  if (!nameOrId) throw new CliError("Name a workspace (an id or a name): cloud-ide ls lists them.");
  const list = await api(config, "/api/workspaces");
  const byId = list.find((w) => w.id === nameOrId);
  if (byId) return byId;
  const byName = list.filter((w) => w.name === nameOrId);
  if (byName.length === 1) return byName[0];
  if (byName.length > 1) throw new CliError(`Several workspaces are named "${nameOrId}": use an id (cloud-ide ls).`);
  throw new CliError(`No workspace "${nameOrId}": cloud-ide ls lists yours.`);
}

async function login(args) {
  const origin = parseLoginArgs(args, process.env.CLOUD_IDE_URL);
  const config = { url: origin };
  const start = await api(config, "/api/device", { method: "POST", body: {} });
  process.stderr.write(
    `Open ${start.verificationUrl}\nand approve the code ${start.userCode} (signed in to the IDE).\nWaiting...\n`,
  );
  const deadline = Date.now() + start.expiresIn * 1000;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, start.interval * 1000));
    try {
      const token = await api(config, "/api/device/token", { method: "POST", body: { deviceCode: start.deviceCode } });
      const file = saveConfig({ url: origin, token: token.token });
      process.stderr.write(`Signed in: a token until ${token.expiresAt}, saved in ${file}.\n`);
      return 0;
    } catch (error) {
      if (error.code !== "DEVICE_LOGIN_PENDING") throw error;
    }
  }
  throw new CliError("The code expired before it was approved: run cloud-ide login again.");
}

async function ls(args) {
  const config = loadConfig();
  const list = await api(config, "/api/workspaces");
  if (args.includes("--json")) {
    process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return 0;
  }
  for (const w of list) process.stdout.write(`${w.id}\t${w.name}\t${w.shared ? w.shared.role : "owner"}\n`);
  return 0;
}

function runSsh(argv) {
  return new Promise((resolve, reject) => {
    const child = spawn("ssh", argv, { stdio: "inherit" });
    child.on("error", () => reject(new CliError("ssh is not installed: install OpenSSH's client.")));
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

async function ssh(args) {
  const { target, command } = parseSshArgs(args);
  const config = loadConfig();
  const workspace = await resolveWorkspace(config, target);
  const key = await registerKey(config);
  const tty = command.length === 0 ? ["-t"] : [];
  return runSsh([...sshOptions(workspace.id, key), ...tty, hostAlias(workspace.id), ...command]);
}

async function sshConfig(args) {
  const config = loadConfig();
  const list = await api(config, "/api/workspaces");
  const key = await registerKey(config);
  const { text, hosts } = hostEntries(list, { key, knownHosts: join(configDir(), "known_hosts"), proxyCommand });
  if (!args.includes("--write")) {
    process.stdout.write(text);
    return 0;
  }
  const dir = join(homedir(), ".ssh");
  const file = join(dir, "config");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const before = existsSync(file) ? readFileSync(file, "utf8") : "";
  writeFileSync(file, mergeSshConfig(before, text), { mode: 0o600 });
  process.stderr.write(`Wrote ${hosts.length} host entries to ${file}.\n`);
  return 0;
}

/** How long a tunnel whose stdin ended while it opened still waits for the IDE's answer. */
const TUNNEL_ANSWER_AFTER_STDIN_MS = 5000;

async function tunnel(args) {
  const id = parseTunnelArgs(args);
  const config = loadConfig();
  // ssh gone (it exits, gives up or is killed): stdout is a broken pipe; nothing is left to carry.
  process.stdout.on("error", () => process.exit(0));
  // Read stdin while the tunnel opens (a wake takes seconds): its end means ssh went away, and
  // the tunnel must not linger then, holding the stderr it shares with ssh (and whoever waits
  // for that to close). It waits a moment more for the IDE's answer, so that a refusal is still
  // told (`cloud-ide tunnel ID </dev/null` checks access). What ssh sent meanwhile (its banner)
  // goes first once the tunnel is open.
  const early = { chunks: [], ended: false };
  const giveUp = new AbortController();
  const keep = (chunk) => early.chunks.push(chunk);
  const ended = () => {
    early.ended = true;
    setTimeout(() => giveUp.abort(), TUNNEL_ANSWER_AFTER_STDIN_MS).unref();
  };
  process.stdin.on("data", keep);
  process.stdin.once("end", ended);
  let socket;
  try {
    socket = await openTunnelSocket(config, id, giveUp.signal);
  } catch (error) {
    if (giveUp.signal.aborted) process.exit(0);
    throw new CliError(`The tunnel to ${id} was refused: ${error.message}${error.code ? ` (${error.code})` : ""}`);
  } finally {
    process.stdin.off("data", keep);
    process.stdin.off("end", ended);
    process.stdin.pause();
  }
  const { code, reason } = await pipeTunnel(socket, process.stdin, process.stdout, early);
  if (code !== 1000 && code !== 1005) process.stderr.write(`cloud-ide tunnel: closed (${code}) ${reason}\n`);
  // stdin may still be open (ssh keeps it): exit once stdout is flushed.
  process.stdout.write("", () => process.exit(code === 1000 || code === 1005 ? 0 : 1));
  return new Promise(() => {});
}

async function ports(args) {
  const { target, local, remote } = parsePortsArgs(args);
  const config = loadConfig();
  const workspace = await resolveWorkspace(config, target);
  const key = await registerKey(config);
  process.stderr.write(`Forwarding localhost:${local} to port ${remote} in ${workspace.name}; Ctrl-C ends it.\n`);
  return runSsh([
    ...sshOptions(workspace.id, key),
    "-N",
    "-o",
    "ExitOnForwardFailure=yes",
    "-L",
    `127.0.0.1:${local}:localhost:${remote}`,
    hostAlias(workspace.id),
  ]);
}

async function open(args) {
  const config = loadConfig({ needToken: false });
  const target = args.find((a) => !a.startsWith("--"));
  const url = target
    ? new URL(`/workspaces/${(await resolveWorkspace(loadConfig(), target)).id}`, config.url).toString()
    : config.url;
  process.stdout.write(`${url}\n`);
  if (args.includes("--print")) return 0;
  const opener = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  const opened = spawnSync(opener, [url], { stdio: "ignore" });
  if (opened.error || opened.status !== 0) process.stderr.write(`(${opener} could not open it: open the URL above.)\n`);
  return 0;
}

const COMMANDS = { login, ls, ssh, "ssh-config": sshConfig, tunnel, ports, open };

async function main(argv) {
  const parsed = parseCommandLine(argv);
  if (parsed.kind === "help") {
    usage(parsed.topic);
    return parsed.status;
  }
  if (parsed.kind === "unknown") {
    process.stderr.write(`cloud-ide: no command "${parsed.command}".\n\n`);
    usage("main");
    return 2;
  }
  return COMMANDS[parsed.command](parsed.args);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`cloud-ide: ${error instanceof CliError ? error.message : (error?.stack ?? error)}\n`);
    process.exitCode = 1;
  },
);
