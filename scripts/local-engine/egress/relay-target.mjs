// The CONNECT relay on the ingress port (getTcpPort().fetch()) reaches a
// container's port the way getTcpPort() does on Cloudflare: on the
// container's own network address, never its loopback. A server that listens
// on 127.0.0.1 or ::1 only is reached here only when the resident agent
// forwards it (sandbox/loopback_forwarder.py), as in production; so local
// tests exercise the production path. Nothing else is reachable: not the
// bridge, not the Internet, whatever the app's own egress settings are.
import net from "node:net";
import { networkInterfaces } from "node:os";

/**
 * Reads `X-Dst-Addr` as workerd sends it for getTcpPort(PORT): `127.x.x.x:PORT`
 * or `[::1]:PORT`. Only the port is used: see {@link relayTarget}.
 * @param {string} value
 * @returns {{ host: string, port: number } | undefined}
 */
export function parseLoopbackTarget(value) {
  const match = /^(?:(127(?:\.\d{1,3}){3})|\[(::1)\]):(\d{1,5})$/.exec(value.trim());
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!host || !net.isIP(host) || !(port >= 1 && port <= 65535)) return undefined;
  return { host, port };
}

/**
 * The namespace's own IPv4 address on its network (eth0 on Docker's bridge):
 * where the relay connects. Undefined when there is none.
 * @param {ReturnType<typeof networkInterfaces>} [interfaces]
 * @returns {string | undefined}
 */
export function containerAddress(interfaces = networkInterfaces()) {
  for (const addresses of Object.values(interfaces)) {
    for (const address of addresses ?? []) {
      if (address.family === "IPv4" && !address.internal) return address.address;
    }
  }
  return undefined;
}

/**
 * Where a CONNECT for `X-Dst-Addr` goes: the port it names, on the container's
 * own address.
 * @param {string} value
 * @param {string | undefined} address from {@link containerAddress}
 * @returns {{ host: string, port: number } | undefined}
 */
export function relayTarget(value, address) {
  const target = parseLoopbackTarget(value);
  if (!target || !address) return undefined;
  return { host: address, port: target.port };
}
