// Vite plugins that keep one person's request from reaching anyone else
// through the local dev server (`vite dev`):
//   - a Host header that is not a host name (`a@b.localhost`) is answered 400
//     before any middleware builds a URL from it;
//   - an error while serving a request is answered with a plain 500 and
//     logged, never broadcast: Vite's own error handler sends every error to
//     every open page as a full-screen overlay. Errors in the IDE's own
//     source (a module that fails to compile) keep Vite's overlay.

/** host, IPv4 address or [IPv6 address], with an optional port. */
const HOST_HEADER =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Whether a Host header names a host (and port) and nothing else. A missing
 * header is left to the servers behind (HTTP/1.0).
 * @param {string | undefined} host
 */
export function isValidHostHeader(host) {
  return host === undefined || (host.length <= 260 && HOST_HEADER.test(host));
}

/**
 * Whether an error comes from compiling one of the project's modules (a Vite
 * plugin names the module), as opposed to handling a request.
 * @param {unknown} error
 */
export function isSourceError(error) {
  return typeof error === "object" && error !== null && typeof (/** @type {{id?: unknown}} */ (error).id) === "string";
}

/** @returns {import("vite").Plugin[]} */
export function devServerGuards() {
  return [
    {
      name: "cloud-ide:host-guard",
      apply: "serve",
      enforce: "pre",
      configureServer(server) {
        server.middlewares.use((req, res, next) => {
          if (isValidHostHeader(req.headers.host)) return next();
          res.writeHead(400, { "content-type": "text/plain; charset=utf-8", connection: "close" });
          res.end("Bad Request: the Host header must be a host name, with an optional port.\n");
        });
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
              const reason = error instanceof Error ? error.message : String(error);
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
