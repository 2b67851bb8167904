// Vite plugins that keep one person's request from reaching anyone else
// through the local dev server (`vite dev`). They guard the IDE's own host;
// a request for a preview hostname ({port}-{id}-{token}.localhost:PORT) goes
// to the Worker as it came, since it is a workspace's dev server that answers
// it (and the Worker and the workspace check it):
//   - a Host header that is not a host name (`a@b.localhost`), or more than
//     one Host header, is answered 400 before any middleware builds a URL
//     from it;
//   - only the IDE's own modules are transformed (on the IDE's host): a request that asks Vite
//     to compile something else (`/Dockerfile?lang.tsx`, `/README.md?import`)
//     or to compile in a way the IDE never asks for is answered 404;
//   - an error while serving a request is answered with a plain 500 and
//     logged, never broadcast: Vite's own error handler sends every error to
//     every open page as a full-screen overlay. Errors in the IDE's own
//     source (a module under app/ or protocol/ that fails to compile) keep
//     Vite's overlay;
//   - the IDE page's own modules (`/app/…`, `/protocol/…`, Vite's client,
//     the optimised dependencies) are served by Vite directly, not through
//     the Worker, which would only hand each back to Vite through its ASSETS
//     binding (two hops more for each of the page's ~230 requests); the
//     checks above and the sources guard run first as before, and the page
//     itself, the API and every preview hostname still go to the Worker;
//   - a request without a body (GET, HEAD) whose connection from Vite to
//     workerd was lost before any answer (a pooled keep-alive connection
//     workerd had just closed) is sent once more, as a browser resends an
//     idempotent request on a reused connection that drops (RFC 9110 9.2.2).
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Where the IDE's page gets its modules from. */
const SOURCE_DIRS = ["app/", "protocol/"];
/** Query keys that make Vite compile a file (`lang.*` too). */
const TRANSFORM_KEYS = new Set([
  "import",
  "raw",
  "url",
  "inline",
  "no-inline",
  "worker",
  "sharedworker",
  "worker_file",
  "direct",
  "html-proxy",
  "used",
  "commonjs-proxy",
  "commonjs-entry",
]);
/** Of those, the ones Vite itself adds to the IDE page's requests. */
const IDE_TRANSFORMS = new Set(["import", "direct", "used"]);

/** host, IPv4 address or [IPv6 address], with an optional port. */
const HOST_HEADER =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Whether a Host header names a host (and port) and nothing else. A missing
 * header is left to the servers behind (HTTP/1.0).
 * @param {string | undefined} host
 */
export function isValidHostHeader(host) {
  // The URL parser has the last word: `8099-a-b.127.0.0.1` looks like a name but ends in an address.
  return host === undefined || (host.length <= 260 && HOST_HEADER.test(host) && URL.canParse(`http://${host}/`));
}

/**
 * Whether a request names its host more than once (two Host headers): which
 * one a server behind would take is not for us to guess (RFC 9112 3.2: 400).
 * @param {readonly string[]} rawHeaders names and values, in turn, as Node keeps them
 */
export function hasRepeatedHost(rawHeaders) {
  let hosts = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === "host") hosts++;
  }
  return hosts > 1;
}

/**
 * Whether a request is for a preview hostname, a subdomain of `previewDomain`
 * (`localhost:5173` under `vite dev`). It reads the host as the Cloudflare
 * plugin builds the Worker's URL (the request target's own host when it has
 * one, else the Host header) and as the Worker compares it (URL-normalized,
 * lower case), so a request the Worker serves as the IDE is never taken for
 * a preview here.
 * @param {string | undefined} url the request target (`/path?query` or an absolute URL)
 * @param {string | undefined} host the Host header
 * @param {string} previewDomain
 */
export function isPreviewRequest(url, host, previewDomain) {
  if (!isValidHostHeader(host)) return false;
  let target;
  try {
    target = new URL(url ?? "/", `http://${host ?? "localhost"}`);
  } catch {
    return false;
  }
  return target.host.toLowerCase().endsWith(`.${previewDomain.toLowerCase()}`);
}

/**
 * Whether a request asks for a transform the IDE's page never asks for, or
 * for one of a file that is not one of the IDE's modules.
 * @param {string} url the request's path and query
 */
export function isForeignTransform(url) {
  const queryAt = url.indexOf("?");
  if (queryAt < 0) return false;
  const keys = url
    .slice(queryAt + 1)
    .split("&")
    .map((part) => decodeSafely(part.split("=")[0] ?? "").toLowerCase());
  const transforms = keys.filter((key) => TRANSFORM_KEYS.has(key) || key.startsWith("lang."));
  if (transforms.length === 0) return false;
  if (transforms.some((key) => !IDE_TRANSFORMS.has(key))) return true;
  const path = decodeSafely(url.slice(0, queryAt));
  if (path.includes("..") || path.includes("\\")) return true;
  if (path.startsWith("/@fs/")) return !path.includes("/node_modules/");
  if (path.startsWith("/@") || path.startsWith("/node_modules/")) return false;
  return !SOURCE_DIRS.some((dir) => path.startsWith(`/${dir}`));
}

/** @param {string} text */
function decodeSafely(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Whether an error comes from compiling one of the IDE's own modules (a Vite
 * plugin names the module), as opposed to handling a request.
 * @param {unknown} error
 */
export function isSourceError(error) {
  if (typeof error !== "object" || error === null) return false;
  const id = /** @type {{id?: unknown}} */ (error).id;
  if (typeof id !== "string") return false;
  const file = id.split("?")[0] ?? "";
  return SOURCE_DIRS.some((dir) => file.startsWith(`${ROOT}${dir}`) || file.startsWith(`/${dir}`));
}

/** Where the IDE page's modules are, as Vite serves them under `vite dev`. */
const MODULE_PREFIXES = ["/app/", "/protocol/", "/@vite/", "/@react-refresh", "/@id/", "/node_modules/"];

/**
 * Whether a request is for one of the IDE page's modules on the IDE's own
 * host (GET or HEAD): Vite serves it directly. A preview hostname's request,
 * whatever its path, is never one.
 * @param {{ method?: string, url?: string, host?: string }} request
 * @param {string} previewDomain
 */
export function isIdeModuleRequest({ method, url, host }, previewDomain) {
  if (method !== "GET" && method !== "HEAD") return false;
  if (!url?.startsWith("/") || !isValidHostHeader(host) || isPreviewRequest(url, host, previewDomain)) return false;
  return MODULE_PREFIXES.some((prefix) => url.startsWith(prefix));
}

/** Socket errors of the hop to workerd: the request never got an answer. */
const LOST_CONNECTION_CODES = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE", "UND_ERR_CLOSED"]);
const RETRIED = Symbol("cloud-ide:retried");

/**
 * An error and its causes, outermost first (five at most): undici says only
 * "fetch failed", and what failed is in its cause.
 * @param {unknown} error
 * @returns {unknown[]}
 */
function causeChain(error) {
  const chain = [];
  for (let e = error; e !== undefined && e !== null && chain.length < 5; e = e instanceof Error ? e.cause : undefined) {
    chain.push(e);
  }
  return chain;
}

/** @param {unknown} error */
function codeOf(error) {
  const code = error instanceof Error ? /** @type {{code?: unknown}} */ (error).code : undefined;
  return typeof code === "string" ? code : undefined;
}

/**
 * An error and its causes on one line (`TypeError: fetch failed <- SocketError: other side closed (UND_ERR_SOCKET)`).
 * @param {unknown} error
 */
export function describeWithCauses(error) {
  return causeChain(error)
    .map((e) => {
      if (!(e instanceof Error)) return String(e);
      const code = codeOf(e);
      return `${e.name}: ${e.message}${code ? ` (${code})` : ""}`;
    })
    .join(" <- ");
}

/**
 * Whether a failed request may be sent to the Worker once more: it has no
 * body (GET or HEAD, no upgrade), it was not sent again already, nothing of
 * an answer went out, and it failed because the connection to workerd was
 * lost (somewhere in the error's causes) rather than because the Worker
 * answered or threw.
 * @param {{ method?: string, headers: Record<string, unknown>, retried: boolean, headersSent: boolean }} request
 * @param {unknown} error
 */
export function mayResend({ method, headers, retried, headersSent }, error) {
  if (retried || headersSent || (method !== "GET" && method !== "HEAD") || headers.upgrade !== undefined) return false;
  return causeChain(error).some((e) => LOST_CONNECTION_CODES.has(codeOf(e) ?? ""));
}

/**
 * @param {{ previewDomain: string }} options previews' domain under `vite dev` (`localhost:PORT`)
 * @returns {import("vite").Plugin[]}
 */
export function devServerGuards({ previewDomain }) {
  return [
    {
      name: "cloud-ide:host-guard",
      apply: "serve",
      enforce: "pre",
      configureServer(server) {
        server.middlewares.use((req, res, next) => {
          if (isValidHostHeader(req.headers.host) && !hasRepeatedHost(req.rawHeaders)) return next();
          res.writeHead(400, { "content-type": "text/plain; charset=utf-8", connection: "close" });
          res.end("Bad Request: send one Host header, a host name with an optional port.\n");
        });
      },
    },
    {
      name: "cloud-ide:transform-guard",
      apply: "serve",
      enforce: "pre",
      configureServer(server) {
        server.middlewares.use((req, res, next) => {
          // A preview's own modules (`/src/assets/logo.svg?import`) are its dev server's to compile.
          if (isPreviewRequest(req.url, req.headers.host, previewDomain)) return next();
          if (!isForeignTransform(req.url ?? "/")) return next();
          res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
          res.end("Not Found\n");
        });
      },
    },
    {
      name: "cloud-ide:ide-modules-direct",
      apply: "serve",
      configureServer(server) {
        // After every plugin's configureServer: the Cloudflare plugin's middleware is in the stack by then.
        return () => {
          const layer = server.middlewares.stack.find(
            (candidate) => /** @type {{name?: string}} */ (candidate.handle).name === "cloudflarePreMiddleware",
          );
          if (!layer) {
            server.config.logger.warn("the IDE's modules go through the Worker: no Cloudflare middleware found");
            return;
          }
          const toWorker = /** @type {import("vite").Connect.NextHandleFunction} */ (layer.handle);
          layer.handle = /** @type {import("vite").Connect.NextHandleFunction} */ (
            (req, res, next) =>
              isIdeModuleRequest({ method: req.method, url: req.url, host: req.headers.host }, previewDomain)
                ? next()
                : toWorker(req, res, next)
          );
        };
      },
    },
    {
      name: "cloud-ide:contain-request-errors",
      apply: "serve",
      enforce: "post",
      configureServer(server) {
        // Runs after the other plugins added their middlewares, so it sees
        // their errors before Vite's broadcasting error handler does.
        return () => {
          server.middlewares.use(
            /** @type {import("vite").Connect.ErrorHandleFunction} */ (error, req, res, next) => {
              if (isSourceError(error)) return next(error);
              const reason = describeWithCauses(error);
              const request = /** @type {typeof req & { [RETRIED]?: boolean, originalUrl?: string }} */ (req);
              const retried = request[RETRIED] === true;
              if (
                mayResend({ method: req.method, headers: req.headers, retried, headersSent: res.headersSent }, error)
              ) {
                server.config.logger.warn(`request ${req.method} ${req.url} lost (${reason}): sending it again`, {
                  timestamp: true,
                });
                request[RETRIED] = true;
                if (request.originalUrl) request.url = request.originalUrl;
                // The whole stack again: the Cloudflare plugin builds a fresh request from `req` (no body to replay).
                return server.middlewares.handle(req, res, next);
              }
              server.config.logger.error(`request ${req.method} ${req.url} failed: ${reason}`, { timestamp: true });
              if (res.headersSent) return res.destroy();
              res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
              res.end("Internal Server Error\n");
            },
          );
        };
      },
    },
  ];
}
