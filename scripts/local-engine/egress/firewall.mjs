// The sidecar's packet filter, written whole with iptables-restore each time
// the settings change (the sidecar owns its network namespace: nothing else
// adds rules there). The app container shares this namespace, so these rules
// are what its traffic meets:
//   - nothing comes in but loopback, replies, and workerd's CONNECTs on the
//     ingress port from the Docker gateway;
//   - nothing goes to the bridge (other workspaces, the host's services),
//     to this machine's own addresses or to link-local ones (cloud metadata),
//     in any mode, except the egress gate on the gateway
//     (scripts/lib/egress-gate.mjs). workerd's own egress listener relays
//     to any address, loopback included, so it is closed to the namespace;
//     without a gate it is open to the sidecar's group only;
//   - Internet off: nothing else goes out; only loopback is reachable, and
//     what the interception hands to workerd;
//   - interception on: outbound HTTP (80) and HTTPS (443) is redirected to the
//     sidecar, which hands it to workerd;
//   - DNS (UDP 53) is answered by the sidecar whenever the Internet is off or
//     something is intercepted. Its own upstream queries (Internet on) run
//     under a group of their own and are not redirected.
import { spawn } from "node:child_process";
import net from "node:net";

/**
 * @typedef {object} FirewallState
 * @property {string} gateway the Docker bridge gateway (workerd's side)
 * @property {string} bridgeCidr the Docker bridge network
 * @property {number} ingressPort where workerd sends CONNECT, /ca, /egress
 * @property {number} egressPort workerd's egress listener on the gateway
 * @property {number} [gatePort] the egress gate on the gateway (the sidecar's way to workerd)
 * @property {string[]} [hostAddresses] this machine's addresses: never reachable
 * @property {boolean} internet
 * @property {boolean} intercept some outbound HTTP(S) is handed to workerd
 * @property {number} interceptPort where redirected TCP arrives
 * @property {number} dnsPort where redirected DNS arrives
 * @property {number} forwarderGid the group the sidecar's own DNS queries run as
 */

/**
 * The IPv4 rules for a state, in iptables-restore's format.
 * @param {FirewallState} s
 */
export function ipv4Rules(s) {
  const filter = [
    "*filter",
    ":INPUT DROP [0:0]",
    ":FORWARD DROP [0:0]",
    ":OUTPUT ACCEPT [0:0]",
    "-A INPUT -i lo -j ACCEPT",
    "-A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
    `-A INPUT -p tcp -s ${s.gateway}/32 --dport ${s.ingressPort} -j ACCEPT`,
    "-A OUTPUT -o lo -j ACCEPT",
    // Redirected packets still carry their outside interface when this chain sees them.
    "-A OUTPUT -d 127.0.0.0/8 -j ACCEPT",
    "-A OUTPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
    s.gatePort
      ? `-A OUTPUT -p tcp -d ${s.gateway}/32 --dport ${s.gatePort} -j ACCEPT`
      : `-A OUTPUT -p tcp -d ${s.gateway}/32 --dport ${s.egressPort} -m owner --gid-owner ${s.forwarderGid} -j ACCEPT`,
  ];
  const unreachable = [
    s.bridgeCidr,
    "169.254.0.0/16",
    ...(s.hostAddresses ?? []).filter((a) => net.isIPv4(a) && !a.startsWith("127.")).map((a) => `${a}/32`),
  ];
  for (const range of unreachable) {
    filter.push(`-A OUTPUT -p tcp -d ${range} -j REJECT --reject-with tcp-reset`, `-A OUTPUT -d ${range} -j REJECT`);
  }
  if (!s.internet) {
    filter.push("-A OUTPUT -p tcp -j REJECT --reject-with tcp-reset", "-A OUTPUT -j REJECT");
  }
  filter.push("COMMIT");

  const nat = [
    "*nat",
    ":PREROUTING ACCEPT [0:0]",
    ":INPUT ACCEPT [0:0]",
    ":OUTPUT ACCEPT [0:0]",
    ":POSTROUTING ACCEPT [0:0]",
  ];
  if (!s.internet || s.intercept) {
    nat.push(
      "-A OUTPUT -d 127.0.0.0/8 -j RETURN",
      `-A OUTPUT -d ${s.bridgeCidr} -j RETURN`,
      `-A OUTPUT -p udp --dport 53 -m owner ! --gid-owner ${s.forwarderGid} -j REDIRECT --to-ports ${s.dnsPort}`,
    );
  }
  if (s.intercept) {
    nat.push(`-A OUTPUT -p tcp -m multiport --dports 80,443 -j REDIRECT --to-ports ${s.interceptPort}`);
  }
  nat.push("COMMIT");
  return `${[...filter, ...nat].join("\n")}\n`;
}

/**
 * The IPv6 rules: no interception over IPv6 (the local engine has no IPv6
 * bridge); nothing comes in, and with the Internet off nothing goes out.
 * @param {FirewallState} s
 */
export function ipv6Rules(s) {
  const filter = [
    "*filter",
    ":INPUT DROP [0:0]",
    ":FORWARD DROP [0:0]",
    ":OUTPUT ACCEPT [0:0]",
    "-A INPUT -i lo -j ACCEPT",
    "-A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
    "-A OUTPUT -o lo -j ACCEPT",
    "-A OUTPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
  ];
  for (const address of (s.hostAddresses ?? []).filter((a) => net.isIPv6(a) && a !== "::1")) {
    filter.push(`-A OUTPUT -d ${address}/128 -j REJECT`);
  }
  if (!s.internet) filter.push("-A OUTPUT -j REJECT");
  filter.push("COMMIT");
  return `${filter.join("\n")}\n`;
}

/**
 * Replaces the namespace's rules with those of `state`, IPv4 and IPv6.
 * Each table is swapped in one step, so no packet meets half a rule set.
 * @param {FirewallState} state
 */
export async function applyFirewall(state) {
  await restore("iptables-restore", ipv4Rules(state));
  await restore("ip6tables-restore", ipv6Rules(state));
}

/**
 * @param {string} command
 * @param {string} rules
 */
function restore(command, rules) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [], { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(undefined);
      else reject(new Error(`${command} failed (${code}): ${stderr.trim()}`));
    });
    child.stdin.end(rules);
  });
}
