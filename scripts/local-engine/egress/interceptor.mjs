// Hands the container's redirected outbound connections to workerd, as the
// real sidecar does (proxy-everything's main.go):
//   1. find where the connection was going (the connection table);
//   2. read the TLS ClientHello's server name, or on port 80 the HTTP Host;
//   3. `CONNECT ip:port` to workerd's egress port with `X-Tls-Sni` or
//      `X-Hostname`;
//   4. workerd answers 200 when a Worker handler takes the connection: a
//      plaintext HTTP stream follows, so TLS is terminated here with a
//      certificate for that name from the sidecar's CA; 202 when nothing is
//      mapped: the bytes pass as they are (workerd closes them when the
//      Internet is off).
import net from "node:net";
import tls from "node:tls";
import { isCertifiableName } from "./certificates.mjs";
import { readClientHello } from "./client-hello.mjs";

/** How long a client may wait before its first byte; then it is passed on without a name. */
const FIRST_BYTES_TIMEOUT_MS = 5000;
/**
 * How long workerd may take to answer the CONNECT (it answers at once when it
 * runs): past it the client gets an error instead of a connection that never
 * speaks (issue 45: a stalled egress left curl waiting 300 s and npm forever).
 * Generous: on two cores busy with several installs at once, an answer can lag.
 */
export const CONNECT_ANSWER_TIMEOUT_MS = 90_000;
/** The most of a request's head read to find its Host (as the real sidecar). */
const MAX_HTTP_HEAD = 128 * 1024;
const MAX_CLIENT_HELLO = 16 * 1024 + 5;
const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE"];

/**
 * What to tell workerd about a connection from its first bytes.
 * @param {Buffer} bytes
 * @param {number} port the original destination port
 * @returns {{ done: false } | { done: true, sni?: string, hostname?: string, malformed?: boolean }}
 *   `malformed`: a plain HTTP request whose Host gives no URL (repeated, or not a host name)
 */
export function connectionHints(bytes, port) {
  const hello = readClientHello(bytes);
  if (hello.state === "need-more") return bytes.length >= MAX_CLIENT_HELLO ? { done: true } : { done: false };
  if (hello.state === "done") return hello.sni ? { done: true, sni: hello.sni } : { done: true };
  if (port !== 80) return { done: true };
  const text = bytes.toString("latin1");
  const prefixOk = HTTP_METHODS.some((method) =>
    text.length <= method.length ? `${method} `.startsWith(text) : text.startsWith(`${method} `),
  );
  if (!prefixOk) return { done: true };
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return bytes.length >= MAX_HTTP_HEAD ? { done: true } : { done: false };
  const hosts = [...text.slice(0, end + 2).matchAll(/\r\nhost:[ \t]*([^\r\n]*)/gi)].map((m) => (m[1] ?? "").trim());
  const host = hosts[0];
  if (!host) return { done: true };
  // workerd would build the request's URL from it and fail with its own error text.
  if (hosts.length > 1 || !URL.canParse(`http://${host}/`)) return { done: true, hostname: host, malformed: true };
  return { done: true, hostname: host };
}

/**
 * Answers a request the IDE does not pass on, and closes the connection.
 * @param {net.Socket} socket
 * @param {string} status
 * @param {string} reason
 */
function refuse(socket, status, reason) {
  const body = `Refused by the IDE: ${reason}\n`;
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * A plain HTTP request whose method a Worker cannot take (CONNECT, TRACE).
 * @param {Buffer} head
 * @param {{ hostname?: string }} hints
 * @returns {string | undefined}
 */
export function unrelayedMethod(head, hints) {
  if (!hints.hostname) return undefined;
  const method = /^([A-Z]+) /.exec(head.toString("latin1", 0, 16))?.[1];
  return method === "CONNECT" || method === "TRACE" ? method : undefined;
}

/**
 * @typedef {object} InterceptorOptions
 * @property {number} port where the firewall redirects connections (127.0.0.1)
 * @property {() => { host: string, port: number, headers: string[] }} egress where workerd's egress listener is reached now, and the header lines that pass it
 * @property {(client: { address: string, port: number }) => Promise<{ address: string, port: number } | undefined>} originalDestination
 * @property {(name: string) => Promise<{ key: string, cert: string }>} mintLeaf
 * @property {(message: string) => void} log
 * @property {number} [connectAnswerTimeoutMs] replaces CONNECT_ANSWER_TIMEOUT_MS (tests of the interceptor)
 */

/** @param {InterceptorOptions} options */
export function startInterceptor(options) {
  // Half-open connections stay open: a client that has sent its whole request may still read the answer.
  // No Nagle on either leg: a relay holding back a small write until the last
  // one is acknowledged meets the peer's delayed ACK, 40 ms a time.
  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    handle(socket, options).catch((error) => {
      options.log(`intercept: ${error.message}`);
      socket.resetAndDestroy();
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve(server));
  });
}

/**
 * @param {net.Socket} socket
 * @param {InterceptorOptions} options
 */
async function handle(socket, options) {
  socket.on("error", () => socket.destroy());
  const client = { address: socket.remoteAddress ?? "", port: socket.remotePort ?? 0 };
  const target = await options.originalDestination(client);
  if (!target) throw new Error(`no original destination for ${client.address}:${client.port}`);
  const { head, hints } = await readHints(socket, target.port);
  // workerd cannot hand these to a Worker and answers with its own error
  // text (a source location, a stack): the IDE answers instead.
  const unrelayed = unrelayedMethod(head, hints);
  if (unrelayed) {
    refuse(
      socket,
      "405 Method Not Allowed",
      `${unrelayed} requests are not passed on from a workspace; send the request to the host itself.`,
    );
    return;
  }
  if (hints.malformed) {
    refuse(
      socket,
      "400 Bad Request",
      "the request's Host header must appear once and name a host (with an optional port).",
    );
    return;
  }
  const destination = `${target.address}:${target.port}`;
  const timeoutMs = options.connectAnswerTimeoutMs ?? CONNECT_ANSWER_TIMEOUT_MS;
  let connected;
  try {
    connected = await connectToWorkerd(options.egress(), destination, hints, client, timeoutMs);
  } catch (error) {
    // A plain HTTP client is told why; a TLS client can only see the connection end.
    if (hints.hostname) {
      const status = error.code === "ETIMEDOUT" ? "504 Gateway Timeout" : "502 Bad Gateway";
      refuse(socket, status, `the request to ${hints.hostname} could not be handed on (${error.message}).`);
      options.log(`intercept: ${destination} (${hints.hostname}): ${error.message}`);
      return;
    }
    throw new Error(`${destination}${hints.sni ? ` (${hints.sni})` : ""}: ${error.message}`);
  }
  const { tunnel, status } = connected;
  tunnel.on("error", () => {
    tunnel.destroy();
    socket.destroy();
  });
  socket.on("close", () => tunnel.destroy());
  tunnel.on("close", () => socket.destroy());

  if (status === 200 && hints.sni) {
    // workerd wants the plaintext: terminate TLS here with a certificate for the name.
    const leaf = await options.mintLeaf(hints.sni);
    socket.unshift(head);
    const secure = new tls.TLSSocket(socket, {
      isServer: true,
      secureContext: tls.createSecureContext({ key: leaf.key, cert: leaf.cert }),
    });
    secure.on("error", () => {
      secure.destroy();
      tunnel.destroy();
    });
    secure.pipe(tunnel);
    tunnel.pipe(secure);
    return;
  }
  if (status === 200 || status === 202) {
    tunnel.write(head);
    socket.pipe(tunnel);
    tunnel.pipe(socket);
    return;
  }
  tunnel.destroy();
  throw new Error(`workerd answered ${status} for ${destination}`);
}

/**
 * Reads the first bytes of a connection until they say what it is (or the
 * client waits for the server to speak first).
 * @param {net.Socket} socket
 * @param {number} port
 * @returns {Promise<{ head: Buffer, hints: { sni?: string, hostname?: string, malformed?: boolean } }>}
 */
function readHints(socket, port) {
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const finish = (/** @type {{ sni?: string, hostname?: string, malformed?: boolean }} */ hints) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.pause();
      // A name OpenSSL could not certify is passed on raw, never decrypted.
      if (hints.sni && !isCertifiableName(hints.sni)) resolve({ head, hints: {} });
      else resolve({ head, hints });
    };
    const onData = (/** @type {Buffer} */ chunk) => {
      head = Buffer.concat([head, chunk]);
      const verdict = connectionHints(head, port);
      if (verdict.done) finish({ sni: verdict.sni, hostname: verdict.hostname, malformed: verdict.malformed });
    };
    const onEnd = () => finish({});
    const timer = setTimeout(() => finish({}), FIRST_BYTES_TIMEOUT_MS);
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/**
 * Opens a CONNECT tunnel to workerd's egress listener.
 * @param {{ host: string, port: number, headers: string[] }} egress
 * @param {string} destination ip:port
 * @param {{ sni?: string, hostname?: string }} hints
 * @param {{ address: string, port: number }} client
 * @param {number} timeoutMs how long the answer may take
 * @returns {Promise<{ tunnel: net.Socket, status: number }>}
 */
function connectToWorkerd(egress, destination, hints, client, timeoutMs) {
  return new Promise((resolve, reject) => {
    const tunnel = net.connect({ port: egress.port, host: egress.host, allowHalfOpen: true, noDelay: true });
    const timer = setTimeout(() => {
      const error = Object.assign(
        new Error(`the IDE's egress did not answer within ${Math.round(timeoutMs / 1000)} s`),
        {
          code: "ETIMEDOUT",
        },
      );
      fail(error);
    }, timeoutMs);
    const lines = [
      `CONNECT ${destination} HTTP/1.1`,
      `Host: ${destination}`,
      `User-Agent: cloud-ide-egress/${client.address}:${client.port}`,
      `X-Forwarded-For: ${client.address}:${client.port}`,
      "X-Proto: tcp",
      ...egress.headers,
    ];
    if (hints.sni) lines.push(`X-Tls-Sni: ${hints.sni}`);
    if (hints.hostname) lines.push(`X-Hostname: ${hints.hostname}`);
    let response = Buffer.alloc(0);
    const onData = (/** @type {Buffer} */ chunk) => {
      response = Buffer.concat([response, chunk]);
      const end = response.indexOf("\r\n\r\n");
      if (end < 0) {
        if (response.length > 16 * 1024) fail(new Error("workerd's CONNECT answer has no end"));
        return;
      }
      clearTimeout(timer);
      tunnel.off("data", onData);
      tunnel.off("error", fail);
      tunnel.pause();
      const rest = response.subarray(end + 4);
      if (rest.length > 0) tunnel.unshift(rest);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(response.toString("latin1"))?.[1] ?? 0);
      resolve({ tunnel, status });
    };
    const fail = (/** @type {Error} */ error) => {
      clearTimeout(timer);
      tunnel.destroy();
      reject(error);
    };
    tunnel.on("data", onData);
    tunnel.once("error", fail);
    tunnel.once("connect", () => tunnel.write(`${lines.join("\r\n")}\r\n\r\n`));
  });
}
