#!/usr/bin/env node
// cloud-ide: the IDE from a command line (Node 20+, no native modules).
// `cloud-ide --help` lists the commands; each has its own --help.
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { api, CliError, configDir, loadConfig, saveConfig } from "./lib/config.mjs";
import { hostAlias, proxyCommand, registerKey, sshOptions } from "./lib/ssh.mjs";
import { openTunnelSocket, pipeTunnel } from "./lib/tunnel.mjs";

const HELP = {
  main: `cloud-ide: the IDE from a command line.

Usage: cloud-ide COMMAND [options]

Commands:
  login URL                       sign in (a code to approve in the browser); saves a token
  ls                              your workspaces
  ssh WORKSPACE [-- COMMAND...]   a shell (or a command) in a workspace over ssh
  ssh-config [--write]            Host entries for ~/.ssh/config (VS Code, JetBrains, scp, rsync)
  tunnel WORKSPACE_ID             stdio <-> the workspace's sshd (ssh's ProxyCommand)
  ports forward WORKSPACE LOCAL:REMOTE   a local port to a port in the workspace
  open [WORKSPACE]                the IDE (or a workspace) in the browser

WORKSPACE is an id or a name. Environment: CLOUD_IDE_URL, CLOUD_IDE_TOKEN
(instead of what login saved); behind Cloudflare Access, CF_ACCESS_CLIENT_ID and
CF_ACCESS_CLIENT_SECRET (a service token) or CF_ACCESS_TOKEN (cloudflared access token).
Run cloud-ide COMMAND --help for a command's own help.`,
  login: `Usage: cloud-ide login URL

Starts a device login at URL (the IDE, e.g. https://ide.example.com): prints a
code and a page to open; once you approve the code there (signed in), saves a
token valid for 30 days in ${join(configDir(), "config.json")}.`,
  ls: `Usage: cloud-ide ls [--json]

Lists your workspaces (and those shared with you): id, name, your role.`,
  ssh: `Usage: cloud-ide ssh WORKSPACE [-- COMMAND...]

Opens a shell in WORKSPACE (an id or a name) over ssh, or runs COMMAND and
exits with its status. The first use makes a key pair in ${configDir()} and
registers it with the IDE (it lasts as long as the token). Needs OpenSSH's ssh.`,
  "ssh-config": `Usage: cloud-ide ssh-config [--write]

Prints a "Host cloud-ide-NAME" entry per workspace (ProxyCommand cloud-ide
tunnel ID), for VS Code Remote-SSH, JetBrains Gateway, Zed, scp, rsync, git.
--write puts them in ~/.ssh/config between "# cloud-ide begin/end" marks
(replacing the ones written before).`,
  tunnel: `Usage: cloud-ide tunnel WORKSPACE_ID

Carries stdin and stdout to the workspace's sshd through the IDE, as ssh's
ProxyCommand. Opening it wakes a sleeping workspace.`,
  ports: `Usage: cloud-ide ports forward WORKSPACE LOCAL:REMOTE

Listens on localhost:LOCAL and forwards each connection to port REMOTE in the
workspace (ssh -L through the tunnel) until interrupted.`,
  open: `Usage: cloud-ide open [WORKSPACE] [--print]

Opens the IDE, or WORKSPACE in it, in the browser (--print: only prints the URL).`,
};

function usage(command) {
  process.stdout.write(`${HELP[command] ?? HELP.main}\n`);
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
  const url = args[0] ?? process.env.CLOUD_IDE_URL;
  if (!url) throw new CliError("Usage: cloud-ide login URL");
  let origin;
  try {
    origin = new URL(url).origin;
  } catch {
    throw new CliError(`"${url}" is not a URL: give the IDE's address, e.g. https://ide.example.com.`);
  }
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
  const config = loadConfig();
  const split = args.indexOf("--");
  const [target] = split === -1 ? args : args.slice(0, split);
  const command = split === -1 ? [] : args.slice(split + 1);
  const workspace = await resolveWorkspace(config, target);
  const key = await registerKey(config);
  const tty = command.length === 0 ? ["-t"] : [];
  return runSsh([...sshOptions(workspace.id, key), ...tty, hostAlias(workspace.id), ...command]);
}

function configName(name) {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+|-+$/g, "") || "workspace"
  );
}

async function sshConfig(args) {
  const config = loadConfig();
  const list = await api(config, "/api/workspaces");
  const key = await registerKey(config);
  const used = new Set();
  let text = "";
  for (const w of list) {
    if (w.shared && w.shared.role !== "editor") continue;
    let name = `cloud-ide-${configName(w.name)}`;
    if (used.has(name)) name = `cloud-ide-${w.id}`;
    used.add(name);
    text += `Host ${name}
  HostName ${hostAlias(w.id)}
  HostKeyAlias ${hostAlias(w.id)}
  User root
  IdentityFile ${key}
  IdentitiesOnly yes
  UserKnownHostsFile ${join(configDir(), "known_hosts")}
  ProxyCommand ${proxyCommand(w.id)}

`;
  }
  if (!args.includes("--write")) {
    process.stdout.write(text);
    return 0;
  }
  const { existsSync, mkdirSync, readFileSync, writeFileSync } = await import("node:fs");
  const { homedir } = await import("node:os");
  const dir = join(homedir(), ".ssh");
  const file = join(dir, "config");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const before = existsSync(file) ? readFileSync(file, "utf8") : "";
  const block = `# cloud-ide begin (written by cloud-ide ssh-config --write)\n${text}# cloud-ide end\n`;
  const marked = /# cloud-ide begin[^\n]*\n[\s\S]*?# cloud-ide end\n?/;
  writeFileSync(
    file,
    marked.test(before)
      ? before.replace(marked, block)
      : `${before}${before && !before.endsWith("\n") ? "\n" : ""}${block}`,
    {
      mode: 0o600,
    },
  );
  process.stderr.write(`Wrote ${used.size} host entries to ${file}.\n`);
  return 0;
}

async function tunnel(args) {
  const [id] = args;
  if (!id) throw new CliError("Usage: cloud-ide tunnel WORKSPACE_ID");
  const config = loadConfig();
  let socket;
  try {
    socket = await openTunnelSocket(config, id);
  } catch (error) {
    throw new CliError(`The tunnel to ${id} was refused: ${error.message}${error.code ? ` (${error.code})` : ""}`);
  }
  const { code, reason } = await pipeTunnel(socket, process.stdin, process.stdout);
  if (code !== 1000 && code !== 1005) process.stderr.write(`cloud-ide tunnel: closed (${code}) ${reason}\n`);
  // stdin may still be open (ssh keeps it): exit once stdout is flushed.
  process.stdout.write("", () => process.exit(code === 1000 || code === 1005 ? 0 : 1));
  return new Promise(() => {});
}

async function ports(args) {
  const [sub, target, spec] = args;
  if (sub !== "forward" || !target || !spec)
    throw new CliError("Usage: cloud-ide ports forward WORKSPACE LOCAL:REMOTE");
  const match = /^(\d{1,5}):(\d{1,5})$/.exec(spec);
  if (!match) throw new CliError(`"${spec}" is not LOCAL:REMOTE (two port numbers, e.g. 3000:5173).`);
  const config = loadConfig();
  const workspace = await resolveWorkspace(config, target);
  const key = await registerKey(config);
  process.stderr.write(`Forwarding localhost:${match[1]} to port ${match[2]} in ${workspace.name}; Ctrl-C ends it.\n`);
  return runSsh([
    ...sshOptions(workspace.id, key),
    "-N",
    "-o",
    "ExitOnForwardFailure=yes",
    "-L",
    `127.0.0.1:${match[1]}:localhost:${match[2]}`,
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
  const [command, ...args] = argv;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    usage(args[0] ?? "main");
    return command ? 0 : 1;
  }
  const run = COMMANDS[command];
  if (!run) {
    process.stderr.write(`cloud-ide: no command "${command}".\n\n`);
    usage("main");
    return 2;
  }
  // --help anywhere before "--" is the command's help.
  const beforeDashes = args.indexOf("--") === -1 ? args : args.slice(0, args.indexOf("--"));
  if (beforeDashes.includes("--help") || beforeDashes.includes("-h")) {
    usage(command);
    return 0;
  }
  return run(args);
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
