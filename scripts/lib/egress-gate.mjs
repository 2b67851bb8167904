// The only way from a workspace's network namespace to workerd's egress
// listener (on the local platform). workerd answers any CONNECT on that
// listener, and with the Internet on it relays unmapped connections (202) to
// whatever address they name, this machine's loopback included. The app
// container shares its namespace with the network sidecar and runs as root,
// so nothing in the namespace can tell the sidecar's connections from the
// app's. Hence: the sidecar's firewall closes workerd's listener to the whole
// namespace and opens this gate instead, which
//   - takes a CONNECT only with the token the engine proxy gave the sidecar
//     (in its environment, which the app container cannot read);
//   - refuses targets that are not public addresses or that are this
//     machine's own (address-ranges.mjs);
//   - passes the rest, as it came, to workerd's egress port on the gateway.
import { timingSafeEqual } from "node:crypto";
import net from "node:net";
import { publicAddressCheck } from "../local-engine/egress/address-ranges.mjs";

export const TOKEN_HEADER = "x-cloud-ide-egress-token";
export const PORT_HEADER = "x-cloud-ide-egress-port";
const MAX_HEAD = 16 * 1024;
const HEAD_TIMEOUT_MS = 10_000;

/**
 * Reads a CONNECT head from the sidecar and decides on it.
 * @param {string} head the request's head, up to and without the blank line
 * @param {{ token: string, isAllowedTarget: (address: string) => boolean }} rules
 * @returns {{ ok: true, egressPort: number, head: string } | { ok: false, status: number, reason: string }}
 */
export function checkGateRequest(head, { token, isAllowedTarget }) {
  const [requestLine = "", ...headerLines] = head.split("\r\n");
  const target = /^CONNECT (\S+) HTTP\/1\.[01]$/.exec(requestLine)?.[1];
  if (!target) return { ok: false, status: 405, reason: "only CONNECT passes" };
  /** @type {Map<string, string>} */
  const headers = new Map();
  const kept = [requestLine];
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    if (colon <= 0) return { ok: false, status: 400, reason: "a malformed header" };
    if (name === TOKEN_HEADER || name === PORT_HEADER) headers.set(name, line.slice(colon + 1).trim());
    else kept.push(line);
  }
  const given = Buffer.from(headers.get(TOKEN_HEADER) ?? "");
  const expected = Buffer.from(token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, status: 403, reason: "no valid token" };
  }
  const egressPort = Number(headers.get(PORT_HEADER));
  if (!(Number.isInteger(egressPort) && egressPort >= 1 && egressPort <= 65535)) {
    return { ok: false, status: 400, reason: "no egress port" };
  }
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(target);
  const address = match?.[1] ?? match?.[2] ?? "";
  const port = Number(match?.[3]);
  if (!net.isIP(address) || !(port >= 1 && port <= 65535)) {
    return { ok: false, status: 400, reason: `${target} is not an address and port` };
  }
  if (!isAllowedTarget(address)) {
    return { ok: false, status: 403, reason: `${address} is this machine or a private network` };
  }
  return { ok: true, egressPort, head: `${kept.join("\r\n")}\r\n\r\n` };
}

/**
 * @param {{ listenHost: string, workerdHost: string, token: string, hostAddresses: string[], log?: (message: string) => void }} options
 *   `workerdHost`: where workerd's egress listeners are (the Docker gateway)
 * @returns {Promise<{ port: number, close: () => Promise<void> }>}
 */
export async function startEgressGate({ listenHost, workerdHost, token, hostAddresses, log = () => {} }) {
  const rules = { token, isAllowedTarget: publicAddressCheck(hostAddresses) };
  /** @type {Set<net.Socket>} */
  const open = new Set();
  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy());
    let buffered = Buffer.alloc(0);
    const refuse = (/** @type {number} */ status, /** @type {string} */ reason) => {
      log(`egress gate: refused (${status}): ${reason}`);
      socket.end(`HTTP/1.1 ${status} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    };
    const timer = setTimeout(() => socket.destroy(), HEAD_TIMEOUT_MS);
    const onData = (/** @type {Buffer} */ chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) {
        if (buffered.length > MAX_HEAD) {
          clearTimeout(timer);
          socket.off("data", onData);
          refuse(431, "the head is too large");
        }
        return;
      }
      clearTimeout(timer);
      socket.off("data", onData);
      socket.pause();
      const verdict = checkGateRequest(buffered.subarray(0, end).toString("latin1"), rules);
      if (!verdict.ok) {
        refuse(verdict.status, verdict.reason);
        return;
      }
      const upstream = net.connect({ host: workerdHost, port: verdict.egressPort, allowHalfOpen: true, noDelay: true });
      upstream.on("error", () => {
        upstream.destroy();
        socket.destroy();
      });
      socket.on("close", () => upstream.destroy());
      upstream.on("close", () => socket.destroy());
      upstream.write(verdict.head);
      const rest = buffered.subarray(end + 4);
      if (rest.length > 0) upstream.write(rest);
      socket.pipe(upstream);
      upstream.pipe(socket);
      socket.resume();
    };
    socket.on("data", onData);
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, listenHost, () => resolve(undefined));
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}
