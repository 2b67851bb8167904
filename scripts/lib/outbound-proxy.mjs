// The Worker's outbound requests for workspaces, on the local platform.
//
// The Outbound entrypoint (worker/network/outbound.ts) forwards what a
// container sends to the host the request names. On Cloudflare its fetch()
// cannot reach private addresses. Locally workerd resolves the name on this
// machine and connects wherever it points: `vm`, `ip6-localhost` or a public
// name that resolves to 127.0.0.1 reached the IDE itself, another workspace's
// sidecar and the IDE's Vite (issue 42). So locally the Worker sends those
// requests here instead, and this proxy resolves the name itself and checks
// the address it is about to connect to: the check happens inside the
// connect (Node's `lookup` hook), so no second resolution can come between
// the check and the connection (DNS rebinding). Refused: loopback,
// link-local, private, CGNAT, unspecified and every address of this machine
// (scripts/local-engine/egress/address-ranges.mjs), on every port.
//
// Protocol (loopback only, with a token the Worker gets as a variable):
//   any method, path "/", headers X-Cloud-IDE-Outbound-Url (the absolute
//   http(s) URL to fetch) and X-Cloud-IDE-Outbound-Token; every other header
//   and the body are the request's own. The answer is the server's, or ours
//   with X-Cloud-IDE-Outbound-Failure naming why there is none (`refused
//   ADDRESS`, `dns`, `connection`, `timeout`, `tls`, `bad-request`).
//   WebSocket upgrades are relayed as bytes once the server answered 101.
import { timingSafeEqual } from "node:crypto";
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { publicAddressCheck } from "../local-engine/egress/address-ranges.mjs";

export const URL_HEADER = "x-cloud-ide-outbound-url";
export const TOKEN_HEADER = "x-cloud-ide-outbound-token";
export const FAILURE_HEADER = "x-cloud-ide-outbound-failure";
/** A server that has not started answering by then gets 504 (issue 45: every request ends). */
export const ANSWER_TIMEOUT_MS = 60_000;
/** Headers of one hop only (RFC 9110 §7.6.1), never passed on. */
const HOP_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  URL_HEADER,
  TOKEN_HEADER,
]);

/** A name that resolved to an address no workspace may reach. */
export class RefusedAddress extends Error {
  /** @param {string} host @param {string} address */
  constructor(host, address) {
    super(`${host} resolves to ${address}`);
    this.code = "ERR_CLOUD_IDE_REFUSED_ADDRESS";
    this.host = host;
    this.address = address;
  }
}

/**
 * A `lookup` for net.connect that refuses a name if any address it resolves
 * to may not be reached (a name with one private address among public ones
 * is refused whole: which one a connection gets is not ours to choose).
 * @param {(address: string) => boolean} isAllowed
 * @param {Record<string, string>} [fixedHosts] names answered without DNS (tests)
 * @returns {net.LookupFunction}
 */
export function checkedLookup(isAllowed, fixedHosts = {}) {
  return (hostname, options, callback) => {
    /** @param {NodeJS.ErrnoException | null} error @param {dns.LookupAddress[]} [addresses] */
    const decide = (error, addresses = []) => {
      if (error) return callback(error, "", 0);
      const refused = addresses.find((entry) => !isAllowed(entry.address));
      if (refused) return callback(new RefusedAddress(hostname, refused.address), "", 0);
      if (addresses.length === 0) {
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
      }
      if (options.all) return /** @type {any} */ (callback)(null, addresses);
      const [first] = addresses;
      return callback(null, first?.address ?? "", first?.family ?? 4);
    };
    const fixed = fixedHosts[hostname.toLowerCase()];
    if (fixed) return decide(null, [{ address: fixed, family: net.isIP(fixed) === 6 ? 6 : 4 }]);
    dns.lookup(hostname, { family: options.family ?? 0, all: true }, decide);
  };
}

/**
 * Reads what a request asks for, or why it cannot be served.
 * @param {http.IncomingHttpHeaders} headers
 * @param {string} token
 * @returns {{ ok: true, target: URL } | { ok: false, status: number, reason: string }}
 */
export function checkProxyRequest(headers, token) {
  const given = Buffer.from(String(headers[TOKEN_HEADER] ?? ""));
  const expected = Buffer.from(token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, status: 403, reason: "bad-request" };
  }
  const raw = String(headers[URL_HEADER] ?? "");
  if (!URL.canParse(raw)) return { ok: false, status: 400, reason: "bad-request" };
  const target = new URL(raw);
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    return { ok: false, status: 400, reason: "bad-request" };
  }
  return { ok: true, target };
}

/**
 * What went wrong, as the fixed word the Worker turns into its own text.
 * @param {unknown} error
 */
export function failureOf(error) {
  if (error instanceof RefusedAddress) return `refused ${error.address}`;
  const code = /** @type {NodeJS.ErrnoException} */ (error)?.code ?? "";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "ENODATA") return "dns";
  if (code === "ETIMEDOUT" || code === "ERR_CLOUD_IDE_TIMEOUT") return "timeout";
  if (/CERT|SSL|TLS|ERR_SSL/.test(code)) return "tls";
  return "connection";
}

/**
 * The request's headers as they go on: no hop-by-hop ones, no ours, the target's Host.
 * @param {string[]} rawHeaders
 * @param {URL} target
 * @param {boolean} upgrade keep Connection/Upgrade for a WebSocket handshake
 */
function forwardHeaders(rawHeaders, target, upgrade) {
  /** @type {string[]} */
  const out = ["Host", target.host];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? "";
    const lower = name.toLowerCase();
    if (HOP_HEADERS.has(lower) && !(upgrade && (lower === "connection" || lower === "upgrade"))) continue;
    out.push(name, rawHeaders[i + 1] ?? "");
  }
  return out;
}

/**
 * @param {{ token: string, hostAddresses: string[], fixedHosts?: Record<string, string>, log?: (message: string) => void, isAllowed?: (address: string) => boolean, answerTimeoutMs?: number }} options
 *   `fixedHosts`: names answered without DNS (the test dev server's, so tests
 *   can name a host that resolves to loopback without editing /etc/hosts);
 *   `isAllowed` and `answerTimeoutMs` replace the address rule and the
 *   timeout in tests of the proxy itself only
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function startOutboundProxy({
  token,
  hostAddresses,
  fixedHosts = {},
  log = () => {},
  isAllowed = publicAddressCheck(hostAddresses),
  answerTimeoutMs = ANSWER_TIMEOUT_MS,
}) {
  const lookup = checkedLookup(isAllowed, fixedHosts);
  // Connections to the same server are kept between requests (npm makes hundreds), each checked when made.
  const agents = {
    "http:": new http.Agent({ keepAlive: true, lookup }),
    "https:": new https.Agent({ keepAlive: true, lookup }),
  };
  /** @type {Set<net.Socket>} */
  const open = new Set();

  /**
   * @param {URL} target
   * @param {http.IncomingMessage} req
   * @param {boolean} upgrade
   */
  const upstreamRequest = (target, req, upgrade) => {
    const literal = net.isIP(target.hostname.replace(/^\[|\]$/g, ""));
    const options = {
      method: req.method,
      headers: forwardHeaders(req.rawHeaders, target, upgrade),
      // Upgraded sockets never go back to a pool; a literal address is checked as it is (no lookup).
      agent: upgrade || literal ? false : agents[/** @type {"http:" | "https:"} */ (target.protocol)],
      lookup,
      timeout: answerTimeoutMs,
    };
    const outgoing = (target.protocol === "https:" ? https : http).request(target, /** @type {any} */ (options));
    if (literal && !isAllowed(target.hostname.replace(/^\[|\]$/g, ""))) {
      outgoing.destroy(new RefusedAddress(target.hostname, target.hostname));
    }
    // Only until the answer starts: a download or an event stream may then take as long as it takes.
    outgoing.on("timeout", () =>
      outgoing.destroy(Object.assign(new Error("no answer in time"), { code: "ERR_CLOUD_IDE_TIMEOUT" })),
    );
    return outgoing;
  };

  const server = http.createServer((req, res) => {
    const verdict = checkProxyRequest(req.headers, token);
    if (!verdict.ok) {
      req.resume();
      res.writeHead(verdict.status, { [FAILURE_HEADER]: verdict.reason, "content-length": "0" }).end();
      return;
    }
    const outgoing = upstreamRequest(verdict.target, req, false);
    outgoing.on("response", (answer) => {
      outgoing.setTimeout(0);
      /** @type {string[]} */
      const headers = [];
      for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
        const name = answer.rawHeaders[i] ?? "";
        if (!HOP_HEADERS.has(name.toLowerCase())) headers.push(name, answer.rawHeaders[i + 1] ?? "");
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
      answer.pipe(res);
      answer.on("error", () => res.destroy());
    });
    outgoing.on("error", (error) => {
      const failure = failureOf(error);
      if (failure.startsWith("refused")) log(`outbound: refused ${verdict.target.host}: ${error.message}`);
      if (res.headersSent) return res.destroy();
      res.writeHead(failure === "timeout" ? 504 : 502, { [FAILURE_HEADER]: failure, "content-length": "0" }).end();
    });
    req.on("error", () => outgoing.destroy());
    res.on("close", () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    req.pipe(outgoing);
  });

  server.on("upgrade", (req, socket, head) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy());
    const fail = (/** @type {number} */ status, /** @type {string} */ failure) =>
      socket.end(`HTTP/1.1 ${status} Failed\r\n${FAILURE_HEADER}: ${failure}\r\nContent-Length: 0\r\n\r\n`);
    const verdict = checkProxyRequest(req.headers, token);
    if (!verdict.ok) return fail(verdict.status, verdict.reason);
    const outgoing = upstreamRequest(verdict.target, req, true);
    outgoing.on("upgrade", (answer, upstream, upstreamHead) => {
      const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}`];
      for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
        lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
      }
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstream.write(head);
      upstream.on("error", () => socket.destroy());
      socket.on("close", () => upstream.destroy());
      upstream.on("close", () => socket.destroy());
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    // The server declined the upgrade: its answer, as it came.
    outgoing.on("response", (answer) => {
      const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}`, "Connection: close"];
      for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
        if (!HOP_HEADERS.has((answer.rawHeaders[i] ?? "").toLowerCase())) {
          lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
        }
      }
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      answer.pipe(socket);
    });
    outgoing.on("error", (error) => fail(502, failureOf(error)));
    outgoing.end();
  });

  server.on("connection", (socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(undefined));
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
        agents["http:"].destroy();
        agents["https:"].destroy();
      }),
  };
}
