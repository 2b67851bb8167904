// The CONNECT relay on the ingress port (getTcpPort().fetch()) reaches the
// container's own loopback servers and nothing else: not the bridge, not the
// Internet, whatever the app's own egress settings are.
import net from "node:net";

/**
 * Reads `X-Dst-Addr`: `127.x.x.x:PORT` or `[::1]:PORT`.
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
