// Stands between workerd and the Docker engine (workerd reaches it through
// WRANGLER_DOCKER_HOST) and changes these things in the containers it creates:
//   - the network sidecar's published ingress port (the CONNECT relay to the
//     workspace's loopback servers, and its egress settings) is bound to this
//     machine's loopback: workerd publishes it on every interface, where
//     other machines on the network and every container (through the
//     gateway) could use it;
//   - an app container gets the memory, CPU and process limits of the
//     sandbox's instance type (scripts/lib/instance-types.mjs): workerd sets
//     none. The type is the workspace's machine size when its start says so
//     (CLOUD_IDE_MACHINE in the container's environment), else the configured one;
//   - an app container gets the volumes a test tier asks for (`appBinds`:
//     the frameworks matrix keeps npm's cache in a volume of its own, so its
//     downloads survive between runs); `npm start` asks for none;
//   - the sidecar learns the egress gate (egress-gate.mjs: the only way to
//     workerd's egress listener, with a token the app cannot read) and this
//     machine's addresses, which no workspace may reach.
// Everything else passes through untouched, hijacked exec streams included.
// It also starts the Worker's outbound proxy (outbound-proxy.mjs: what a
// workspace's intercepted requests are fetched through, checked by the
// address they resolve to) and hands back the variables that name it.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { startEgressGate } from "./egress-gate.mjs";
import { dockerLimits, INSTANCE_TYPES } from "./instance-types.mjs";
import { startOutboundProxy } from "./outbound-proxy.mjs";

const CREATE_PATH = /^(?:\/v[\d.]+)?\/containers\/create(?:\?|$)/;
/**
 * A deleted workspace says so with this signal before its container goes
 * (worker/sandbox/sandbox.ts, announceDeletion): workerd keeps a sidecar for
 * the next start of its Durable Object, and a deleted one has none.
 */
const DELETED_KILL = /^(?:\/v[\d.]+)?\/containers\/(workerd-[^/?]+)\/kill\?(?:.*&)?signal=SIGPWR(?:&|$)/;
/** Making or starting a container: a refusal's reason is logged. */
const CONTAINER_START = /^(?:\/v[\d.]+)?\/containers\/(?:create|[^/?]+\/start)(?:\?|$)/;
/** A sidecar's start (`POST /containers/{name}-proxy/start`): the proxy then waits for it to exit. */
const SIDECAR_START = /^(?:\/v[\d.]+)?\/containers\/(workerd-[^/?]+-proxy)\/start(?:\?|$)/;
/**
 * A sidecar exits with this when its workspace was deleted while asleep
 * (scripts/local-engine/egress-sidecar.mjs, RELEASE_PORT): removed then.
 */
const RELEASED_EXIT_CODE = 86;
/** How long the proxy waits for a deleted workspace's container to go before it removes the sidecar anyway. */
const SIDECAR_REMOVAL_WAIT_MS = 120_000;
/** After this long (and again each time it passes) an unanswered Docker call is logged. */
const SLOW_REQUEST_MS = 30_000;
/** workerd holds each request body in memory too (a directory snapshot's tar is at most 1 GiB). */
const MAX_BODY = 1024 * 1024 * 1024;

/**
 * @typedef {{ Memory: number, MemorySwap: number, NanoCpus: number, PidsLimit: number }} Limits
 */

const COMMIT_PATH = /^(?:\/v[\d.]+)?\/commit(?:\?|$)/;

/**
 * The request path to send for `method path`: a snapshot's `docker commit`
 * goes without pausing the container. A paused container freezes an exec
 * that is still joining it (workerd runs one to kill an exec'd process),
 * and under Docker 20.10 with cgroup v1 runc, the engine, the commit and
 * the Durable Object waiting on it then hang for good (seen in our runs).
 * Unpaused, files written during the commit may or may not be in it, as
 * with any copy of a live folder; the Worker saves again later.
 * @param {string | undefined} method
 * @param {string} path
 */
export function rewritePath(method, path) {
  if (method !== "POST" || !COMMIT_PATH.test(path)) return path;
  const url = new URL(path, "http://engine");
  url.searchParams.set("pause", "false");
  return `${url.pathname}${url.search}`;
}

/** The machine env var the Worker starts a container with (worker/lifecycle/lifecycle.ts). */
const MACHINE_ENV = "CLOUD_IDE_MACHINE=";
const SMALL_DISK_ENV = "CLOUD_IDE_TEST_SMALL_DISK=";

/**
 * The small disk a test asked for (worker/testing/test-entry.ts): a folder
 * under /workspace and a size.
 * @param {unknown} env Docker's `Env`
 * @returns {{ dir: string, size: string } | undefined}
 */
export function smallDiskOf(env) {
  if (!Array.isArray(env)) return undefined;
  const entry = env.find((item) => typeof item === "string" && item.startsWith(SMALL_DISK_ENV));
  const match = /^(\/workspace\/[\w.-]+):(\d+[km])$/.exec(entry?.slice(SMALL_DISK_ENV.length) ?? "");
  return match ? { dir: match[1] ?? "", size: match[2] ?? "" } : undefined;
}

/**
 * The limits of the machine size a container's environment names, if any.
 * @param {unknown} env Docker's `Env` (["NAME=value", ...])
 * @returns {Limits | undefined}
 */
function machineLimits(env) {
  if (!Array.isArray(env)) return undefined;
  const entry = env.findLast((item) => typeof item === "string" && item.startsWith(MACHINE_ENV));
  const machine = entry?.slice(MACHINE_ENV.length);
  return machine && Object.hasOwn(INSTANCE_TYPES, machine) ? dockerLimits(machine) : undefined;
}

/**
 * The create request to send instead of `body`.
 * @param {string} name the container's name (`?name=`)
 * @param {Record<string, any>} body Docker's ContainerCreate body
 * @param {Limits} limits for app containers that name no machine size
 * @param {string[]} sidecarEnv added to a sidecar's environment
 * @param {string[]} appBinds added to an app container's binds (`volume:/path`)
 * @param {boolean} smallDisks honor CLOUD_IDE_TEST_SMALL_DISK=DIR:SIZE in an app container's
 *   environment with a tmpfs of SIZE at DIR (the test dev server's, for full-disk tests)
 */
export function rewriteCreate(name, body, limits, sidecarEnv = [], appBinds = [], smallDisks = false) {
  const hostConfig = { ...(body.HostConfig ?? {}) };
  const isSidecar = Array.isArray(body.Cmd) && body.Cmd.includes("--http-egress-port");
  if (isSidecar) {
    const bindings = { ...(hostConfig.PortBindings ?? {}) };
    for (const port of Object.keys(body.ExposedPorts ?? {})) bindings[port] = [{ HostIp: "127.0.0.1", HostPort: "" }];
    hostConfig.PortBindings = bindings;
    // The namespace's loopback speaks IPv6 too, as on an ordinary Linux machine
    // (Docker turns it off when the engine has no IPv6 network): servers that
    // listen on ::1, which Node picks for "localhost" on many machines, work.
    hostConfig.Sysctls = { ...(hostConfig.Sysctls ?? {}), "net.ipv6.conf.lo.disable_ipv6": "0" };
    if (sidecarEnv.length > 0) return { ...body, Env: [...(body.Env ?? []), ...sidecarEnv], HostConfig: hostConfig };
  } else if (name.startsWith("workerd-") && String(hostConfig.NetworkMode ?? "").startsWith("container:")) {
    Object.assign(hostConfig, machineLimits(body.Env) ?? limits);
    if (appBinds.length > 0) hostConfig.Binds = [...(hostConfig.Binds ?? []), ...appBinds];
    const smallDisk = smallDisks ? smallDiskOf(body.Env) : undefined;
    if (smallDisk) hostConfig.Tmpfs = { ...(hostConfig.Tmpfs ?? {}), [smallDisk.dir]: `size=${smallDisk.size}` };
  }
  return { ...body, HostConfig: hostConfig };
}

/** Every address of this machine, loopback included. */
export function hostAddresses() {
  return Object.values(networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .map((a) => a.address.replace(/%.*$/, ""));
}

/**
 * The default bridge's gateway (where workerd's egress listeners are, as
 * containers see it), or undefined when the engine does not say.
 * @param {{ socketPath: string } | { host: string, port: number }} upstream
 * @returns {Promise<string | undefined>}
 */
function bridgeGateway(upstream) {
  return new Promise((resolve) => {
    const req = http.request({ ...upstream, method: "GET", path: "/networks/bridge", agent: false }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => {
        try {
          const gateway = JSON.parse(Buffer.concat(chunks).toString("utf8"))?.IPAM?.Config?.[0]?.Gateway;
          resolve(typeof gateway === "string" && net.isIPv4(gateway) ? gateway : undefined);
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on("error", () => resolve(undefined));
    req.setTimeout(10_000, () => req.destroy());
    req.end();
  });
}

/**
 * The egress gate on the bridge gateway, and what a sidecar must know of it.
 * Without a gateway this machine can listen on (an engine in a VM), there is
 * none and the sidecar falls back to its own firewall (README "Local platform").
 * @param {{ socketPath: string } | { host: string, port: number }} upstream
 * @param {(message: string) => void} log
 */
async function startGate(upstream, log) {
  const gateway = await bridgeGateway(upstream);
  const addresses = hostAddresses();
  const machine = `CLOUD_IDE_HOST_ADDRESSES=${addresses.join(",")}`;
  if (!gateway) {
    log("engine proxy: the Docker bridge has no gateway address here: no egress gate");
    return { env: [machine], close: async () => {} };
  }
  const token = randomBytes(32).toString("hex");
  try {
    const gate = await startEgressGate({
      listenHost: gateway,
      workerdHost: gateway,
      token,
      hostAddresses: addresses,
      log,
    });
    return {
      env: [`CLOUD_IDE_EGRESS_GATE=${gate.port}`, `CLOUD_IDE_EGRESS_TOKEN=${token}`, machine],
      close: gate.close,
    };
  } catch (error) {
    log(`engine proxy: no egress gate on ${gateway}: ${error instanceof Error ? error.message : error}`);
    return { env: [machine], close: async () => {} };
  }
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
 * Starts the proxy on a socket of its own, and the Worker's outbound proxy.
 * @param {{ env: NodeJS.ProcessEnv, limits: Limits, log?: (message: string) => void, egressGate?: boolean, outboundHosts?: Record<string, string>, appBinds?: string[], smallDisks?: boolean }} options
 *   `egressGate: false` only where no workspace runs (tests of the proxy itself);
 *   `outboundHosts`: names the outbound proxy answers without DNS (the test dev server's);
 *   `appBinds`: volumes every app container gets (`name:/path`, a test tier's caches);
 *   `smallDisks`: the test dev server's full-disk tests (rewriteCreate)
 * @returns {Promise<{ dockerHost: string, workerVars: Record<string, string>, close: () => Promise<void> }>}
 *   `workerVars`: what the Worker must be given (as variables) to use the outbound proxy
 */
export async function startEngineProxy({
  env,
  limits,
  log = () => {},
  egressGate = true,
  outboundHosts = {},
  appBinds = [],
  smallDisks = false,
}) {
  const upstream = engineAddress(env);
  const dir = mkdtempSync(join(tmpdir(), "cloud-ide-engine-"));
  const socketPath = join(dir, "docker.sock");
  const gate = egressGate ? await startGate(upstream, log) : { env: [], close: async () => {} };
  const outboundToken = randomBytes(32).toString("hex");
  const outbound = await startOutboundProxy({
    token: outboundToken,
    hostAddresses: hostAddresses(),
    fixedHosts: outboundHosts,
    log,
  });
  const sidecars = sidecarReaper(upstream, log);
  // Every call, timed (README: CLOUD_IDE_TRACE_ENGINE): how a start's time or a hung call is traced.
  const trace = Boolean(env.CLOUD_IDE_TRACE_ENGINE);

  const server = http.createServer((req, res) => {
    // A Docker call that takes this long is what a hung workspace waits on: say which.
    // (A container's plain /wait is its monitor: it lasts as long as the container.)
    const started = Date.now();
    const monitor = /\/containers\/[^/]+\/wait$/.test(req.url ?? "");
    const slow = setInterval(() => {
      if (monitor) return;
      log(`engine proxy: ${req.method} ${req.url} unanswered after ${Math.round((Date.now() - started) / 1000)} s`);
    }, SLOW_REQUEST_MS);
    res.on("close", () => clearInterval(slow));
    if (trace) {
      res.on("finish", () =>
        log(
          `engine ${new Date(started).toISOString().slice(11, 23)} +${Date.now() - started}ms ${req.method} ${req.url} ${res.statusCode}`,
        ),
      );
    }
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
    const deleted = req.method === "POST" ? DELETED_KILL.exec(req.url ?? "")?.[1] : undefined;
    if (deleted && !deleted.endsWith("-proxy")) {
      // Not passed on: the container is about to be removed, or already is.
      // Answered as Docker answers a kill (204): workerd throws on any other status.
      await readBody(req);
      res.writeHead(204).end();
      sidecars.removeSidecarOf(decodeURIComponent(deleted));
      return;
    }
    const headers = { ...req.headers };
    // The whole body first (workerd sends each one whole, with its length):
    // the engine may answer and close as soon as it read the headers, and a
    // body still being written would turn its answer into EPIPE.
    let body = await readBody(req);
    if (trace && /\/exec$/.test(req.url ?? "")) {
      try {
        log(`engine exec ${JSON.stringify(JSON.parse(body.toString("utf8")).Cmd).slice(0, 160)}`);
      } catch {
        // Not JSON: the engine refuses it, and the call's own line says so.
      }
    }
    if (req.method === "POST" && CREATE_PATH.test(req.url ?? "")) {
      const name = new URL(req.url ?? "", "http://engine").searchParams.get("name") ?? "";
      try {
        body = Buffer.from(
          JSON.stringify(
            rewriteCreate(name, JSON.parse(body.toString("utf8")), limits, gate.env, appBinds, smallDisks),
          ),
        );
        headers["content-length"] = String(body.length);
      } catch {
        // Not JSON: the engine says what is wrong with it.
      }
    }
    await new Promise((resolve, reject) => {
      let answered = false;
      const path = rewritePath(req.method, req.url ?? "/");
      const upstreamRequest = http.request({ ...upstream, method: req.method, path, headers, agent: false });
      upstreamRequest.on("response", (upstreamResponse) => {
        answered = true;
        const sidecar = req.method === "POST" ? SIDECAR_START.exec(req.url ?? "")?.[1] : undefined;
        if (sidecar && upstreamResponse.statusCode === 204) sidecars.removeWhenReleased(decodeURIComponent(sidecar));
        res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.rawHeaders);
        // workerd says only "Container failed to start": the engine's own reason goes in the log.
        if (req.method === "POST" && CONTAINER_START.test(req.url ?? "") && (upstreamResponse.statusCode ?? 0) >= 400) {
          const said = [];
          upstreamResponse.on("data", (chunk) => said.push(chunk));
          upstreamResponse.on("end", () =>
            log(
              `engine proxy: ${req.method} ${req.url} answered ${upstreamResponse.statusCode}: ${Buffer.concat(said).toString("utf8").trim().slice(0, 500)}`,
            ),
          );
        }
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

  server.on("upgrade", passUpgrade(upstream, log));

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve(undefined));
  });
  return {
    dockerHost: `unix://${socketPath}`,
    workerVars: { LOCAL_OUTBOUND_PROXY: outbound.url, LOCAL_OUTBOUND_TOKEN: outboundToken },
    close: async () => {
      sidecars.close();
      await gate.close();
      await outbound.close();
      await new Promise((resolve) => {
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve(undefined);
        });
        server.closeAllConnections();
      });
    },
  };
}

/**
 * Removes the sidecars of deleted workspaces: at once for a deletion the
 * proxy sees, or when a started sidecar exits saying its workspace was
 * deleted while asleep.
 * @param {{ socketPath: string } | { host: string, port: number }} upstream
 * @param {(message: string) => void} log
 */
function sidecarReaper(upstream, log) {
  /**
   * Removes a deleted workspace's sidecar once its app container is gone
   * (workerd removes that one itself, after a stop in progress).
   * @param {string} name the app container's name
   */
  async function removeSidecarOf(name) {
    const deadline = Date.now() + SIDECAR_REMOVAL_WAIT_MS;
    while ((await engineStatus(upstream, "GET", `/containers/${encodeURIComponent(name)}/json`)) === 200) {
      if (Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const status = await engineStatus(
      upstream,
      "DELETE",
      `/containers/${encodeURIComponent(`${name}-proxy`)}?force=true`,
    );
    log(`engine proxy: removed the sidecar of deleted ${name} (${status})`);
  }

  /** The waits on started sidecars (ended when the proxy closes). */
  const sidecarWaits = new Set();

  /**
   * Waits for a started sidecar to exit (Docker's /wait), and removes it
   * when it says its workspace was deleted. Any other exit is workerd's to
   * handle, as before.
   * @param {string} sidecar the sidecar container's name
   */
  function removeWhenReleased(sidecar) {
    const wait = http.request(
      { ...upstream, method: "POST", path: `/containers/${encodeURIComponent(sidecar)}/wait`, agent: false },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", async () => {
          sidecarWaits.delete(wait);
          let exitCode;
          try {
            exitCode = JSON.parse(Buffer.concat(chunks).toString("utf8"))?.StatusCode;
          } catch {
            return;
          }
          if (exitCode !== RELEASED_EXIT_CODE) return;
          const status = await engineStatus(
            upstream,
            "DELETE",
            `/containers/${encodeURIComponent(sidecar)}?force=true`,
          );
          log(`engine proxy: removed the sidecar ${sidecar} of a workspace deleted while asleep (${status})`);
        });
      },
    );
    wait.on("error", () => sidecarWaits.delete(wait));
    sidecarWaits.add(wait);
    wait.end();
  }

  /** Ends the waits (the proxy closes). */
  function close() {
    for (const wait of sidecarWaits) wait.destroy();
  }

  return { removeSidecarOf, removeWhenReleased, close };
}

/**
 * `POST /exec/{id}/start` with `Upgrade: tcp`: after Docker's 101 the
 * connection is a raw stream both ways. Pass the request on as it came.
 * Each side's end (EOF) passes to the other and nothing more, as on a
 * direct connection: the client ends stdin while the process still writes,
 * the engine ends when the process exits.
 * @param {{ socketPath: string } | { host: string, port: number }} upstream
 * @param {(message: string) => void} log
 * @returns {(req: http.IncomingMessage, socket: import("node:stream").Duplex, head: Buffer) => void}
 */
function passUpgrade(upstream, log) {
  return (req, socket, head) => {
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
      // After pipe's own listener: the chunk that completes a refusal is already passed on.
      const answer = upgradeAnswer();
      const watch = (/** @type {Buffer} */ chunk) => {
        const seen = answer(chunk);
        if (seen === "upgraded") engine.off("data", watch);
        if (seen !== "refused") return;
        engine.off("data", watch);
        log(`engine proxy: ${req.method} ${req.url} was refused; the connection is closed after the answer`);
        socket.unpipe(engine);
        engine.unpipe(socket);
        // What the client still sends is dropped: read, so its end arrives and the socket closes.
        socket.resume();
        socket.end();
        engine.destroy();
      };
      engine.on("data", watch);
    });
    engine.on("error", () => socket.destroy());
    socket.on("error", () => engine.destroy());
  };
}

/**
 * Follows the engine's answer to an upgrade (`POST /exec/{id}/start` with
 * `Upgrade: tcp`), one chunk at a time: "upgraded" once it is a 101,
 * "refused" once a whole answer of any other status has passed (its body
 * by Content-Length, or chunked to its last chunk), else "pending".
 *
 * Why: an exec started on a container that is going away (removed with
 * `docker rm -f`) is refused with a 500, on a connection Docker keeps open,
 * and workerd reads a refused start's body to the end of the stream
 * (container-client.c++, startExec). Its exec then never returns; workerd
 * runs a container's calls one at a time, so its report of the container's
 * exit waits behind it too, and the workspace hangs until workerd restarts.
 * Closed after the answer, the exec fails and everything after it goes on.
 * @returns {(chunk: Buffer) => "pending" | "upgraded" | "refused"}
 */
export function upgradeAnswer() {
  let seen = Buffer.alloc(0);
  /** @type {"pending" | "upgraded" | "refused"} */
  let state = "pending";
  return (chunk) => {
    if (state !== "pending") return state;
    seen = Buffer.concat([seen, chunk]);
    const end = seen.indexOf("\r\n\r\n");
    if (end < 0) return state;
    const head = seen.subarray(0, end).toString("latin1");
    if (/^HTTP\/1\.[01] 101 /.test(head)) {
      state = "upgraded";
      return state;
    }
    const body = seen.subarray(end + 4);
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (length) {
      if (body.length >= Number(length[1])) state = "refused";
    } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      if (body.subarray(-5).toString("latin1") === "0\r\n\r\n") state = "refused";
    } else if (!/\r\nconnection:\s*keep-alive/i.test(head)) {
      // No length: the body ends with the connection, which the engine closes itself.
      return state;
    } else {
      state = "refused";
    }
    return state;
  };
}

/**
 * The status of one bodiless request to the engine (0 when it cannot be reached).
 * @param {{ socketPath: string } | { host: string, port: number }} upstream
 * @param {string} method
 * @param {string} path
 * @returns {Promise<number>}
 */
function engineStatus(upstream, method, path) {
  return new Promise((resolve) => {
    const req = http.request({ ...upstream, method, path, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.end();
  });
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
