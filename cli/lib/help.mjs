// Every command's --help text. A function, not a constant: the paths in it
// follow XDG_CONFIG_HOME as it is when the help is asked for.
import { join } from "node:path";
import { configDir } from "./config.mjs";

/**
 * The help for `topic` (a command's name, or "main" for the list of commands).
 * @param {string} topic
 * @returns {string}
 */
export function helpText(topic) {
  const texts = helpTexts();
  return texts[topic] ?? texts.main;
}

/** @returns {Record<string, string>} */
function helpTexts() {
  return {
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
}
