// `cloud-ide ssh-config`: a `Host cloud-ide-NAME` entry per workspace one can
// ssh into, and how they go into ~/.ssh/config (between marks, replacing the
// ones written before and nothing else). Pure: the caller reads and writes.
import { WORKSPACE_ID } from "./args.mjs";
import { configPath, hostAlias } from "./ssh.mjs";

export const BEGIN_MARK = "# cloud-ide begin (written by cloud-ide ssh-config --write)";
export const END_MARK = "# cloud-ide end";

/**
 * A workspace's name as a host name's tail: lowercase letters, digits and
 * single dashes ("My App!" -> "my-app").
 * @param {string} name
 */
export function configName(name) {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "workspace"
  );
}

/**
 * The entries for `workspaces` (as GET /api/workspaces lists them): those
 * one may ssh into (owned, or shared as an editor; a viewer gets no shell),
 * each named after its workspace, or after its id when two names meet.
 * @param {{ id: string, name: string, shared?: { role: string } }[]} workspaces
 * @param {{ key: string, knownHosts: string, proxyCommand: (id: string) => string }} how
 * @returns {{ text: string, hosts: string[] }}
 */
export function hostEntries(workspaces, { key, knownHosts, proxyCommand }) {
  const hosts = [];
  let text = "";
  for (const w of workspaces) {
    if (w.shared && w.shared.role !== "editor") continue;
    // The id goes into the config and a shell command line: only the IDE's own form of one.
    if (!WORKSPACE_ID.test(w.id)) continue;
    let host = `cloud-ide-${configName(w.name)}`;
    if (hosts.includes(host)) host = `cloud-ide-${w.id}`;
    hosts.push(host);
    text += `Host ${host}
  HostName ${hostAlias(w.id)}
  HostKeyAlias ${hostAlias(w.id)}
  User root
  IdentityFile ${configPath(key)}
  IdentitiesOnly yes
  UserKnownHostsFile ${configPath(knownHosts)}
  ProxyCommand ${proxyCommand(w.id)}

`;
  }
  return { text, hosts };
}

const MARKED = /# cloud-ide begin[^\n]*\n[\s\S]*?# cloud-ide end\n?/;

/**
 * ~/.ssh/config (`before`, "" when there is none) with `entries` between the
 * marks: in place of the block written before, else appended.
 * @param {string} before
 * @param {string} entries
 * @returns {string}
 */
export function mergeSshConfig(before, entries) {
  const block = `${BEGIN_MARK}\n${entries}${END_MARK}\n`;
  // A function as the replacement: `$&` or `$1` in an entry must stay as written.
  if (MARKED.test(before)) return before.replace(MARKED, () => block);
  return `${before}${before && !before.endsWith("\n") ? "\n" : ""}${block}`;
}
