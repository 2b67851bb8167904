// Addresses a workspace must never reach through the local platform: this
// machine (its loopback and every address it has), the Docker bridge (other
// workspaces' sidecars), private and link-local networks (cloud metadata
// included), and addresses that are no destination at all. Shared by the
// egress gate on the host (scripts/lib/egress-gate.mjs) and the sidecar.
import net from "node:net";

/** IPv4 ranges that are not the public Internet (RFC 6890 and friends). */
export const NON_PUBLIC_IPV4 = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "224.0.0.0/4",
  "240.0.0.0/4",
];

/** IPv6 ranges that are not the public Internet. IPv4-mapped addresses are checked as IPv4. */
export const NON_PUBLIC_IPV6 = ["::/127", "64:ff9b::/96", "64:ff9b:1::/48", "fc00::/7", "fe80::/10", "ff00::/8"];

/**
 * A test for "may a workspace's traffic be relayed to this address?".
 * @param {string[]} hostAddresses this machine's own addresses (any range: a
 *   public one is this machine too)
 * @returns {(address: string) => boolean} true for an IP literal that is public and not this machine
 */
export function publicAddressCheck(hostAddresses = []) {
  const blocked = new net.BlockList();
  for (const range of NON_PUBLIC_IPV4) {
    const [network, prefix] = range.split("/");
    blocked.addSubnet(network ?? "", Number(prefix), "ipv4");
  }
  for (const range of NON_PUBLIC_IPV6) {
    const [network, prefix] = range.split("/");
    blocked.addSubnet(network ?? "", Number(prefix), "ipv6");
  }
  for (const address of hostAddresses) {
    const family = net.isIP(address);
    if (family) blocked.addAddress(address, family === 6 ? "ipv6" : "ipv4");
  }
  return (address) => {
    const plain = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(plain)?.[1];
    const ip = mapped ?? plain;
    const family = net.isIP(ip);
    if (!family) return false;
    return !blocked.check(ip, family === 6 ? "ipv6" : "ipv4");
  };
}
