/**
 * Which TCP ports listen inside the container, read with one exec: the kernel's
 * socket tables, which process holds each socket, and those processes' command
 * lines. Sockets no process of the container holds (the network sidecar shares
 * the namespace locally) are left out, and so are the resident agent's
 * forwards of loopback-only ports (sandbox/loopback_forwarder.py, which lists
 * them in FORWARDS_FILE): such a port is the dev server's, and `forwarded`.
 * Any other socket the agent holds is left out too: a forward it has just
 * opened and not yet written to the file (a scan in between would show the
 * agent as the port's server for a moment), or its own handshake port.
 */
import { type ListeningPort, PREVIEW_PORT_MAX, PREVIEW_PORT_MIN } from "../../protocol/previews";

export const LISTENING_PORTS_SCRIPT = `
cat /proc/net/tcp /proc/net/tcp6 2>/dev/null
# Whether other processes' fds can be read at all (PID 1 is the image's CMD).
if ls /proc/1/fd >/dev/null 2>&1; then echo @fds; else echo @fds-denied; fi
find /proc/[0-9]*/fd -lname 'socket:*' -printf '%h %l\\n' 2>/dev/null
echo @ps
ps -eo pid=,args= 2>/dev/null
echo @forwards
cat /run/cloud-ide/forwards 2>/dev/null
true`;

const LISTEN = "0A";
/** How the resident agent's command line starts its script (sandbox/resident_agent.py's first line). */
const RESIDENT_AGENT = "# cloud-ide resident agent";

interface Socket {
  port: number;
  inode: string;
  loopback: boolean;
}

/** Parses the output of LISTENING_PORTS_SCRIPT. */
export function parseListeningPorts(output: string): ListeningPort[] {
  const denied = output.includes("\n@fds-denied\n");
  const [tables = "", rest = ""] = output.split(/\n@fds(?:-denied)?\n/);
  const [fds = "", afterFds = ""] = rest.split("\n@ps\n");
  const [ps = "", forwardLines = ""] = afterFds.split("\n@forwards\n");
  const forwards = parseForwards(forwardLines);

  const sockets: Socket[] = [];
  for (const line of tables.split("\n")) {
    const fields = line.trim().split(/\s+/);
    const [local, state, inode] = [fields[1], fields[3], fields[9]];
    if (!local || state !== LISTEN || !inode) continue;
    const [address = "", portHex = ""] = local.split(":");
    const port = Number.parseInt(portHex, 16);
    if (port < PREVIEW_PORT_MIN || port > PREVIEW_PORT_MAX) continue;
    if (forwards.inodes.has(inode)) continue;
    sockets.push({ port, inode, loopback: isLoopback(address) });
  }

  const pidByInode = new Map<string, string>();
  for (const line of fds.split("\n")) {
    const match = /^\/proc\/(\d+)\/fd socket:\[(\d+)\]$/.exec(line.trim());
    if (match?.[1] && match[2]) pidByInode.set(match[2], match[1]);
  }
  const argsByPid = new Map<string, string>();
  for (const line of ps.split("\n")) {
    const match = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (match?.[1] && match[2]) argsByPid.set(match[1], match[2].slice(0, 200));
  }

  // Without permission to read the fd tables, every listening socket counts.
  const owned = denied ? sockets : sockets.filter((s) => pidByInode.has(s.inode));
  const byPort = new Map<number, ListeningPort>();
  for (const socket of owned) {
    const pid = pidByInode.get(socket.inode);
    const process = pid ? argsByPid.get(pid) : undefined;
    if (process?.includes(RESIDENT_AGENT)) continue;
    const seen = byPort.get(socket.port);
    byPort.set(socket.port, {
      port: socket.port,
      process: seen?.process ?? process,
      loopbackOnly: (seen?.loopbackOnly ?? true) && socket.loopback,
    });
  }
  for (const listening of byPort.values()) {
    if (!listening.loopbackOnly) continue;
    if (forwards.ports.has(listening.port)) listening.forwarded = true;
    const error = forwards.errors.get(listening.port);
    if (error) listening.forwardError = error;
  }
  return [...byPort.values()].sort((a, b) => a.port - b.port);
}

/** FORWARDS_FILE's lines: `PORT INODE,INODE` per forward, `PORT ! REASON` per port that could not be. */
function parseForwards(text: string): { ports: Set<number>; inodes: Set<string>; errors: Map<number, string> } {
  const ports = new Set<number>();
  const inodes = new Set<string>();
  const errors = new Map<number, string>();
  for (const line of text.split("\n")) {
    const error = /^(\d+) ! (.+)$/.exec(line.trim());
    if (error?.[1] && error[2]) {
      errors.set(Number(error[1]), error[2].slice(0, 300));
      continue;
    }
    const forward = /^(\d+) ([\d,]+)$/.exec(line.trim());
    if (!forward?.[1] || !forward[2]) continue;
    ports.add(Number(forward[1]));
    for (const inode of forward[2].split(",")) if (inode) inodes.add(inode);
  }
  return { ports, inodes, errors };
}

/** /proc/net addresses are hex in host (little-endian) byte order. */
function isLoopback(hex: string): boolean {
  if (hex.length === 8) return hex.endsWith("7F");
  if (hex === "00000000000000000000000001000000") return true;
  return hex.startsWith("0000000000000000FFFF0000") && hex.endsWith("7F");
}
