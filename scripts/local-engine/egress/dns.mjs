// DNS as the real sidecar answers it (proxy-everything's dns.go): queries the
// firewall redirects here (UDP 53) are answered by the egress settings.
//   Internet off: a name workerd intercepts (its DNS allow list) answers
//     A 11.0.0.1 / AAAA fd00::1, so the client connects and the interception
//     takes it to workerd; every other name is NXDOMAIN.
//   Internet on: the query goes to the resolver it was sent to; an allowed
//     name that does not exist there still answers as above.
// Patterns match like Go's path.Match: `*` does not cross a dot.
import dgram from "node:dgram";
import dnsPacket from "dns-packet";

export const ALLOWED_IPV4 = "11.0.0.1";
export const ALLOWED_IPV6 = "fd00::1";
const UPSTREAM_TIMEOUT_MS = 5000;
const NXDOMAIN = 3;

/**
 * Whether `name` matches a pattern of the DNS allow list.
 * @param {string} pattern
 * @param {string} name
 */
export function matchesDnsPattern(pattern, name) {
  const p = normalize(pattern);
  const n = normalize(name);
  if (p === "*" || p === n) return true;
  let source = "";
  for (const char of p) {
    if (char === "*") source += "[^.]*";
    else if (char === "?") source += "[^.]";
    else source += char.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${source}$`).test(n);
}

/** @param {string} name */
function normalize(name) {
  return name.trim().replace(/\.$/, "").toLowerCase();
}

/**
 * @param {string[]} patterns
 * @param {string} name
 */
export function isAllowedName(patterns, name) {
  return patterns.some((pattern) => normalize(pattern) !== "" && matchesDnsPattern(pattern, name));
}

/**
 * The sidecar's own answer to a query: the placeholder addresses for an
 * allowed name, NXDOMAIN for any other.
 * @param {import("dns-packet").Packet} query
 * @param {boolean} allowed
 * @returns {Buffer}
 */
export function localAnswer(query, allowed) {
  const questions = query.questions ?? [];
  /** @type {import("dns-packet").Answer[]} */
  const answers = [];
  if (allowed) {
    for (const question of questions) {
      if (question.type === "A" || question.type === "ANY") {
        answers.push({ type: "A", name: question.name, ttl: 60, data: ALLOWED_IPV4 });
      }
      if (question.type === "AAAA" || question.type === "ANY") {
        answers.push({ type: "AAAA", name: question.name, ttl: 60, data: ALLOWED_IPV6 });
      }
    }
  }
  return dnsPacket.encode({
    type: "response",
    id: query.id ?? 0,
    // dns-packet takes the response code in the low bits of the flags.
    flags: (allowed ? dnsPacket.AUTHORITATIVE_ANSWER : NXDOMAIN) | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED),
    questions,
    answers,
  });
}

/**
 * @typedef {object} DnsSettings
 * @property {boolean} internet
 * @property {string[]} allowPatterns
 */

/**
 * Answers redirected DNS queries on 127.0.0.1:`port`.
 * @param {object} options
 * @param {number} options.port
 * @param {() => DnsSettings} options.settings the current egress settings
 * @param {(client: { address: string, port: number }) => Promise<{ address: string, port: number } | undefined>} options.originalDestination
 * @param {(message: string) => void} options.log
 */
export function startDnsServer({ port, settings, originalDestination, log }) {
  const socket = dgram.createSocket("udp4");
  socket.on("message", (message, client) => {
    handle(message, client).catch((error) => log(`dns: ${error.message}`));
  });

  /**
   * @param {Buffer} message
   * @param {dgram.RemoteInfo} client
   */
  async function handle(message, client) {
    let query;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const { internet, allowPatterns } = settings();
    const name = query.questions?.[0]?.name;
    const allowed = name !== undefined && isAllowedName(allowPatterns, name);
    if (!internet) {
      socket.send(localAnswer(query, allowed), client.port, client.address);
      return;
    }
    const resolver = await originalDestination({ address: client.address, port: client.port });
    if (!resolver) return;
    const answer = await askUpstream(message, resolver);
    if (allowed && dnsPacket.decode(answer).rcode === "NXDOMAIN") {
      socket.send(localAnswer(query, true), client.port, client.address);
      return;
    }
    socket.send(answer, client.port, client.address);
  }

  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, "127.0.0.1", () => resolve(socket));
  });
}

/**
 * @param {Buffer} message
 * @param {{ address: string, port: number }} resolver
 * @returns {Promise<Buffer>}
 */
function askUpstream(message, resolver) {
  return new Promise((resolve, reject) => {
    const upstream = dgram.createSocket("udp4");
    const timer = setTimeout(() => {
      upstream.close();
      reject(new Error(`no answer from ${resolver.address} within ${UPSTREAM_TIMEOUT_MS / 1000} s`));
    }, UPSTREAM_TIMEOUT_MS);
    upstream.once("message", (answer) => {
      clearTimeout(timer);
      upstream.close();
      resolve(answer);
    });
    upstream.once("error", (error) => {
      clearTimeout(timer);
      upstream.close();
      reject(error);
    });
    upstream.send(message, resolver.port, resolver.address);
  });
}
