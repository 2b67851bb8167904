// Local stand-in for workerd's network sidecar (`cloudflare/proxy-everything`),
// used where that image cannot be pulled. workerd runs every app container in
// this container's network namespace and drives it on the ingress port
// (39001, published to the host; only the Docker gateway may connect):
//   GET  /ca      -> the PEM of this sidecar's interception CA
//   PUT  /egress  -> egress settings: workerd's egress port, `internet.enabled`,
//                    `dns.allowHostnames` (non-empty when a Worker intercepts
//                    outbound HTTP(S)); applied before the answer (204)
//   CONNECT       -> `X-Dst-Addr: 127.0.0.1:PORT` (as workerd names a port):
//                    relayed to PORT on this namespace's own address, as
//                    getTcpPort() reaches a container on Cloudflare (never
//                    its loopback; egress/relay-target.mjs): 400 when nothing
//                    listens there, else 200 and bytes relayed both
//                    ways (getTcpPort().fetch()); to port 9 (RELEASE_PORT):
//                    the workspace was deleted while asleep, so this sidecar
//                    exits with RELEASED_EXIT_CODE and the engine proxy
//                    removes it (workerd keeps it otherwise)
// and, inside the namespace: the firewall (egress/firewall.mjs), outbound
// interception handed to workerd (egress/interceptor.mjs) and DNS
// (egress/dns.mjs). See README "Local platform".
import { lookup } from "node:dns/promises";
import http from "node:http";
import net from "node:net";
import { parseArgs } from "node:util";
import { createAuthority } from "./egress/certificates.mjs";
import { lookupOriginalDestination } from "./egress/conntrack.mjs";
import { startDnsServer } from "./egress/dns.mjs";
import { applyFirewall } from "./egress/firewall.mjs";
import { startInterceptor } from "./egress/interceptor.mjs";
import { containerAddress, relayTarget } from "./egress/relay-target.mjs";

/** Where redirected connections and DNS queries arrive (127.0.0.1), ports the app is unlikely to want. */
const INTERCEPT_PORT = 41209;
const DNS_PORT = 41253;
/** The group the sidecar's own DNS queries run as, so the firewall does not redirect them back here. */
const FORWARDER_GID = 39053;
const MAX_SETTINGS_BYTES = 64 * 1024;
/**
 * The Worker's getTcpPort(9) (worker/sandbox/sandbox.ts, releaseNetwork): not a
 * preview (those are 1024 and up), and only workerd reaches this listener.
 */
const RELEASE_PORT = 9;
/** What scripts/lib/engine-proxy.mjs removes a sidecar for. */
const RELEASED_EXIT_CODE = 86;

const log = (/** @type {string} */ message) => console.log(`egress: ${message}`);

const { values } = parseArgs({
  strict: false,
  options: {
    "http-egress-port": { type: "string" },
    "http-ingress-address": { type: "string", default: "0.0.0.0:39001" },
    "docker-gateway-cidr": { type: "string", default: "172.17.0.0/16" },
  },
});
const [ingressHost = "0.0.0.0", ingressPortText = "39001"] = String(values["http-ingress-address"]).split(/:(?=\d+$)/);
const ingressPort = Number(ingressPortText);
const bridgeCidr = String(values["docker-gateway-cidr"]);

const gateway = (await lookup("host.docker.internal", { family: 4 })).address;
// From the engine proxy (scripts/lib/engine-proxy.mjs): the egress gate and its
// token (the app container cannot read this process's environment), and this
// machine's addresses.
const gatePort = Number(process.env.CLOUD_IDE_EGRESS_GATE ?? 0);
const gateToken = process.env.CLOUD_IDE_EGRESS_TOKEN ?? "";
const hostAddresses = (process.env.CLOUD_IDE_HOST_ADDRESSES ?? "").split(",").filter((a) => net.isIP(a));
delete process.env.CLOUD_IDE_EGRESS_TOKEN;
const settings = {
  egressPort: Number(values["http-egress-port"] ?? 0),
  internet: false,
  /** @type {string[]} */
  allowPatterns: [],
};
const firewallState = () => ({
  gateway,
  bridgeCidr,
  ingressPort,
  egressPort: settings.egressPort,
  gatePort,
  hostAddresses,
  internet: settings.internet,
  intercept: settings.allowPatterns.length > 0,
  interceptPort: INTERCEPT_PORT,
  dnsPort: DNS_PORT,
  forwarderGid: FORWARDER_GID,
});

/**
 * The rules now in force, as JSON: workerd sends PUT /egress for every
 * intercept it registers (a workspace registers them again whenever its
 * network policy changes), and most change nothing the firewall holds.
 */
let appliedFirewall = "";
async function applyFirewallIfChanged() {
  const state = firewallState();
  const key = JSON.stringify(state);
  if (key === appliedFirewall) return;
  await applyFirewall(state);
  appliedFirewall = key;
}

// Deny-all before anything else: until workerd says otherwise, nothing leaves.
try {
  await applyFirewallIfChanged();
} catch (error) {
  console.error(`egress: cannot install the firewall, refusing to run: ${error.message}`);
  process.exit(1);
}
process.setgid?.(FORWARDER_GID);

const authority = await createAuthority();
const originalDestination = (/** @type {"tcp" | "udp"} */ protocol) => (client) =>
  lookupOriginalDestination(protocol, client);
await startInterceptor({
  port: INTERCEPT_PORT,
  // Through the gate when there is one (it passes the CONNECT on to workerd's egress port).
  egress: () =>
    gatePort
      ? {
          host: gateway,
          port: gatePort,
          headers: [`X-Cloud-IDE-Egress-Token: ${gateToken}`, `X-Cloud-IDE-Egress-Port: ${settings.egressPort}`],
        }
      : { host: gateway, port: settings.egressPort, headers: [] },
  originalDestination: originalDestination("tcp"),
  mintLeaf: authority.mintLeaf,
  log,
});
await startDnsServer({
  port: DNS_PORT,
  settings: () => ({ internet: settings.internet, allowPatterns: settings.allowPatterns }),
  originalDestination: originalDestination("udp"),
  log,
});

/**
 * Applies a PUT /egress body. Every field is optional; an empty body is refused.
 * @param {unknown} body
 * @returns {string | undefined} what is wrong with it
 */
function settingsUpdate(body) {
  if (typeof body !== "object" || body === null) return "the body is not a JSON object";
  const { port, internet, dns } =
    /** @type {{ port?: unknown, internet?: { enabled?: unknown }, dns?: { allowHostnames?: unknown } }} */ (body);
  if (port === undefined && internet === undefined && dns === undefined) return "nothing to change";
  if (port !== undefined && !(Number.isInteger(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    return `invalid port ${JSON.stringify(port)}`;
  }
  const enabled = internet?.enabled;
  if (enabled !== undefined && typeof enabled !== "boolean") return "internet.enabled must be a boolean";
  const allow = dns?.allowHostnames;
  if (allow !== undefined && !(Array.isArray(allow) && allow.every((name) => typeof name === "string"))) {
    return "dns.allowHostnames must be a list of names";
  }
  if (port !== undefined) settings.egressPort = Number(port);
  if (typeof enabled === "boolean") settings.internet = enabled;
  if (Array.isArray(allow)) settings.allowPatterns = allow.map((name) => name.trim().toLowerCase()).filter(Boolean);
  return undefined;
}

/** @param {string} address */
const isGateway = (address) => address.replace(/^::ffff:/, "") === gateway;

const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/ca") {
    res.writeHead(200, { "content-type": "application/x-pem-file" });
    res.end(authority.certificate);
    return;
  }
  if (req.method === "PUT" && req.url === "/egress") {
    const chunks = [];
    let size = 0;
    req.on("data", (/** @type {Buffer} */ chunk) => {
      size += chunk.length;
      if (size > MAX_SETTINGS_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on("end", async () => {
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "null");
      } catch {
        res.writeHead(400).end("the body is not JSON\n");
        return;
      }
      const problem = settingsUpdate(body);
      if (problem) {
        res.writeHead(400).end(`${problem}\n`);
        return;
      }
      try {
        await applyFirewallIfChanged();
      } catch (error) {
        appliedFirewall = "";
        log(`could not apply the settings: ${error.message}`);
        res.writeHead(500).end("the settings could not be applied\n");
        return;
      }
      log(
        `egress port ${settings.egressPort}, internet ${settings.internet ? "on" : "off"}, ` +
          `intercepting ${settings.allowPatterns.length > 0 ? settings.allowPatterns.join(" ") : "nothing"}`,
      );
      res.writeHead(204).end();
    });
    return;
  }
  res.writeHead(404).end();
});

// workerd is the only client: it reaches this port through Docker's published
// port, so its connections come from the gateway. A container on the bridge,
// or the app in this namespace, is refused before a byte is read.
server.on("connection", (socket) => {
  if (isGateway(socket.remoteAddress ?? "")) return;
  log(`refused a connection from ${socket.remoteAddress}: only workerd, through the gateway ${gateway}, may connect`);
  socket.destroy();
});

/** The port a CONNECT names (`host:port`), if any. */
function destinationPort(/** @type {string} */ destination) {
  const port = /:(\d{1,5})$/.exec(destination.trim())?.[1];
  return port === undefined ? undefined : Number(port);
}

server.on("connect", (req, clientSocket, head) => {
  const destination = String(req.headers["x-dst-addr"] ?? req.url ?? "");
  if (destinationPort(destination) === RELEASE_PORT) {
    log("the workspace was deleted: this sidecar exits, and the engine proxy removes it");
    clientSocket.end("HTTP/1.1 410 Gone\r\nContent-Length: 0\r\n\r\n", () => process.exit(RELEASED_EXIT_CODE));
    setTimeout(() => process.exit(RELEASED_EXIT_CODE), 500).unref();
    return;
  }
  // Read at each CONNECT: the address is assigned when Docker attaches the network.
  const target = relayTarget(String(req.headers["x-dst-addr"] ?? ""), containerAddress());
  if (!target) {
    clientSocket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
    return;
  }
  const upstream = net.connect(target.port, target.host);
  let connected = false;
  upstream.once("connect", () => {
    connected = true;
    clientSocket.write("HTTP/1.1 200 OK\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(clientSocket);
    clientSocket.pipe(upstream);
  });
  upstream.on("error", () => {
    if (connected) clientSocket.destroy();
    else clientSocket.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
  });
  clientSocket.on("error", () => upstream.destroy());
});

server.listen(ingressPort, ingressHost, () => {
  log(
    `listening on ${ingressHost}:${ingressPort} for workerd at ${gateway}${gatePort ? `, egress through the gate on ${gatePort}` : ""}`,
  );
});
