// Where a redirected connection (or DNS query) was going. Node cannot read
// SO_ORIGINAL_DST, but the kernel's connection table has it: the entry whose
// original direction starts at the client's address and port.
import { readFile } from "node:fs/promises";

const TABLE = "/proc/net/nf_conntrack";

/**
 * @typedef {{ address: string, port: number }} Endpoint
 */

/**
 * Finds the original destination of the connection from `client` in a
 * connection table's text.
 * @param {string} table the text of /proc/net/nf_conntrack
 * @param {"tcp" | "udp"} protocol
 * @param {Endpoint} client the redirected socket's peer
 * @returns {Endpoint | undefined}
 */
export function originalDestination(table, protocol, client) {
  for (const line of table.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields[2] !== protocol) continue;
    /** @type {Record<string, string>} */
    const original = {};
    for (const field of fields) {
      const match = /^(src|dst|sport|dport)=(.+)$/.exec(field);
      // The first src/dst/sport/dport are the original direction; the reply's come after.
      if (match?.[1] && match[2] && !(match[1] in original)) original[match[1]] = match[2];
    }
    if (original.src === client.address && Number(original.sport) === client.port && original.dst) {
      return { address: original.dst, port: Number(original.dport) };
    }
  }
  return undefined;
}

/**
 * @param {"tcp" | "udp"} protocol
 * @param {Endpoint} client
 */
export async function lookupOriginalDestination(protocol, client) {
  return originalDestination(await readFile(TABLE, "utf8"), protocol, client);
}
