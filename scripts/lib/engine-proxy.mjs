// Stands between workerd and the Docker engine (workerd reaches it through
// WRANGLER_DOCKER_HOST) and changes two things in the containers it creates:
//   - the network sidecar's published ingress port (the CONNECT relay to the
//     workspace's loopback servers, and its egress settings) is bound to this
//     machine's loopback: workerd publishes it on every interface, where
//     other machines on the network and every container (through the
//     gateway) could use it;
//   - an app container gets the memory, CPU and process limits of the
//     sandbox's instance type (scripts/lib/instance-types.mjs): workerd sets
//     none.
// Everything else passes through untouched, hijacked exec streams included.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CREATE_PATH = /^(?:\/v[\d.]+)?\/containers\/create(?:\?|$)/;
/** workerd holds each request body in memory too (a directory snapshot's tar is at most 1 GiB). */
const MAX_BODY = 1024 * 1024 * 1024;

/**
 * @typedef {{ Memory: number, MemorySwap: number, NanoCpus: number, PidsLimit: number }} Limits
 */

/**
 * The create request to send instead of `body`.
 * @param {string} name the container's name (`?name=`)
 * @param {Record<string, any>} body Docker's ContainerCreate body
 * @param {Limits} limits for app containers
 */
export function rewriteCreate(name, body, limits) {
  const hostConfig = { ...(body.HostConfig ?? {}) };
  const isSidecar = Array.isArray(body.Cmd) && body.Cmd.includes("--http-egress-port");
  if (isSidecar) {
    const bindings = { ...(hostConfig.PortBindings ?? {}) };
    for (const port of Object.keys(body.ExposedPorts ?? {})) bindings[port] = [{ HostIp: "127.0.0.1", HostPort: "" }];
    hostConfig.PortBindings = bindings;
  } else if (name.startsWith("workerd-") && String(hostConfig.NetworkMode ?? "").startsWith("container:")) {
    Object.assign(hostConfig, limits);
  }
  return { ...body, HostConfig: hostConfig };
}

/**
 * Where the real engine is: WRANGLER_DOCKER_HOST or DOCKER_HOST, else the
 * current docker context, else the default socket.
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ socketPath: string } | { host: string, port: number }}
 */
export function engineAddress(env) {
  let endpoint = env.WRANGLER_DOCKER_HOST || env.DOCKER_HOST;
  if (!endpoint) {
    try {
      endpoint = execFileSync("docker", ["context", "inspect", "--format", "{{.Endpoints.docker.Host}}"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim();
    } catch {
      endpoint = "";
    }
  }
  endpoint ||= "unix:///var/run/docker.sock";
  if (endpoint.startsWith("unix://")) return { socketPath: endpoint.slice("unix://".length) };
  const url = new URL(endpoint.replace(/^tcp:/, "http:"));
  return { host: url.hostname, port: Number(url.port || 2375) };
}

/**
 * Starts the proxy on a socket of its own.
 * @param {{ env: NodeJS.ProcessEnv, limits: Limits, log?: (message: string) => void }} options
 * @returns {Promise<{ dockerHost: string, close: () => Promise<void> }>}
 */
export async function startEngineProxy({ env, limits, log = () => {} }) {
  const upstream = engineAddress(env);
  const dir = mkdtempSync(join(tmpdir(), "cloud-ide-engine-"));
  const socketPath = join(dir, "docker.sock");

  const server = http.createServer((req, res) => {
    forward(req, res).catch((error) => {
      log(`engine proxy: ${req.method} ${req.url}: ${error.message}`);
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`the Docker engine could not be reached: ${error.message}\n`);
    });
  });

  /**
   * @param {http.IncomingMessage} req
   * @param {http.ServerResponse} res
   */
  async function forward(req, res) {
    const headers = { ...req.headers };
    // The whole body first (workerd sends each one whole, with its length):
    // the engine may answer and close as soon as it read the headers, and a
    // body still being written would turn its answer into EPIPE.
    let body = await readBody(req);
    if (req.method === "POST" && CREATE_PATH.test(req.url ?? "")) {
      const name = new URL(req.url ?? "", "http://engine").searchParams.get("name") ?? "";
      try {
        body = Buffer.from(JSON.stringify(rewriteCreate(name, JSON.parse(body.toString("utf8")), limits)));
        headers["content-length"] = String(body.length);
      } catch {
        // Not JSON: the engine says what is wrong with it.
      }
    }
    await new Promise((resolve, reject) => {
      let answered = false;
      const upstreamRequest = http.request({ ...upstream, method: req.method, path: req.url, headers, agent: false });
      upstreamRequest.on("response", (upstreamResponse) => {
        answered = true;
        res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.rawHeaders);
        upstreamResponse.pipe(res);
        upstreamResponse.on("end", resolve);
        upstreamResponse.on("error", reject);
      });
      upstreamRequest.on("error", (error) => {
        if (answered) res.destroy();
        else reject(error);
      });
      res.on("close", () => upstreamRequest.destroy());
      upstreamRequest.end(body);
    });
  }

  // `POST /exec/{id}/start` with `Upgrade: tcp`: after Docker's 101 the
  // connection is a raw stream both ways. Pass the request on as it came.
  // Each side's end (EOF) passes to the other and nothing more, as on a
  // direct connection: the client ends stdin while the process still writes,
  // the engine ends when the process exits.
  server.on("upgrade", (req, socket, head) => {
    socket.allowHalfOpen = true;
    const engine =
      "socketPath" in upstream
        ? net.connect({ path: upstream.socketPath, allowHalfOpen: true })
        : net.connect({ port: upstream.port, host: upstream.host, allowHalfOpen: true });
    const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    engine.once("connect", () => {
      engine.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) engine.write(head);
      engine.pipe(socket);
      socket.pipe(engine);
    });
    engine.on("error", () => socket.destroy());
    socket.on("error", () => engine.destroy());
  });

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve(undefined));
  });
  return {
    dockerHost: `unix://${socketPath}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

/** @param {http.IncomingMessage} req */
function readBody(req) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    req.on("data", (/** @type {Buffer} */ chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy(new Error("the request body is too large"));
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}
