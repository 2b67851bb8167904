// What the IDE's own Vite dev server (`vite dev`) serves from this checkout:
// the modules the IDE's page imports, and nothing else (issue 42, findings 3
// and 6).
//   - A file of the checkout is served only when it is in the page's module
//     graph: index.html's entry, or a module imported by one that is (Vite
//     adds a module to the graph when it compiles its importer). Compiling
//     any other file (a test, the Worker's code) would make Vite find new
//     dependencies, optimise them again and send every open page a full
//     reload; a test file is never served, whatever imports it.
//   - Anything else of this machine (`/.dev.vars`, `/README.md`, `/@fs/etc/passwd`,
//     `/__open-in-editor`) is a plain 404 that names no path: Vite's own
//     403 page names the checkout's folder.
//   - A path that is no file of the checkout (`/`, `/workspaces/…`, `/api/…`)
//     goes on to the Worker, which serves the page and the API.
import { statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Vite's own modules the page loads before any of the IDE's (its client, and React's refresh runtime). */
const VITE_ENTRIES = new Set(["/@vite/client", "/@vite/env", "/@react-refresh"]);
/** The page itself (the Worker serves it, through Vite's HTML transform), and its entry module. */
const PAGE = new Set(["/index.html", "/app/main.tsx"]);
/** Dependencies Vite has bundled already: serving them compiles nothing of the checkout. */
const OPTIMIZED_DEPS = "/node_modules/.vite/deps/";
/** A test, a spec or a test helper's file name: never served. */
const TEST_FILE = /(?:^|\/)[^/]*\.(?:test|spec)\.[cm]?[jt]sx?$|(?:^|\/)__(?:tests|mocks)__\//;

/**
 * What the guard does with a request's path (`/app/x.tsx?import&t=1`):
 * "pass" it on (to Vite or the Worker behind), "refuse" it (404), or
 * "graph": serve it only if it is in the page's module graph.
 * @param {string} url the request target's path and query
 * @param {(path: string) => "public" | "checkout" | undefined} fileOf what a path (decoded, from the
 *   root) names: a file of public/ (Vite serves it as it is), another file of the checkout, or neither
 * @returns {"pass" | "refuse" | "graph"}
 */
export function sourceRequestKind(url, fileOf) {
  const queryAt = url.indexOf("?");
  let path;
  try {
    path = decodeURIComponent(queryAt < 0 ? url : url.slice(0, queryAt));
  } catch {
    return "refuse";
  }
  if (!path.startsWith("/") || path.startsWith("//") || /[\\\0]|(?:^|\/)\.\.?(?:\/|$)/.test(path)) return "refuse";
  if (TEST_FILE.test(path)) return "refuse";
  // Opens a file of this machine in an editor on it: nothing an outside request may do.
  if (path === "/__open-in-editor") return "refuse";
  if (VITE_ENTRIES.has(path) || PAGE.has(path) || path.startsWith(OPTIMIZED_DEPS)) return "pass";
  if (path.startsWith("/@fs/") || path.startsWith("/@id/") || path.startsWith("/node_modules/")) return "graph";
  if (path.startsWith("/@")) return "refuse";
  const file = fileOf(path);
  if (file === "public") return "pass";
  return file === "checkout" ? "graph" : "pass";
}

/**
 * The module graph's keys a request may be found under: its URL without the
 * queries Vite adds to the page's requests for the same module (`import`,
 * `t`, then `direct` and `used`), and a virtual module's id unwrapped
 * (`/@id/__x00__x` is `\0x`), as Vite keys them.
 * @param {string} url
 * @returns {string[]}
 */
export function graphKeys(url) {
  const queryAt = url.indexOf("?");
  let path = queryAt < 0 ? url : url.slice(0, queryAt);
  if (path.startsWith("/@id/")) path = path.slice("/@id/".length).replace(/^__x00__/, "\0");
  const parts = (queryAt < 0 ? "" : url.slice(queryAt + 1)).split("&").filter((part) => part !== "");
  const keep = (/** @type {string[]} */ dropped) => {
    const left = parts.filter((part) => !dropped.includes(part) && !/^t=\d+$/.test(part));
    return left.length > 0 ? `${path}?${left.join("&")}` : path;
  };
  return [...new Set([keep(["import"]), keep(["import", "direct", "used"])])];
}

/** @param {string} path */
function fileOf(path) {
  for (const [dir, kind] of /** @type {const} */ ([
    [join(ROOT, "public"), "public"],
    [ROOT, "checkout"],
  ])) {
    try {
      if (statSync(join(dir, path)).isFile()) return kind;
    } catch {
      // Not there.
    }
  }
  return undefined;
}

/**
 * @param {{ skip?: (req: import("node:http").IncomingMessage) => boolean }} [options]
 *   `skip`: requests that are not for the IDE's own host (a preview's), left alone
 * @returns {import("vite").Plugin}
 */
export function ideSourcesGuard({ skip } = {}) {
  return {
    name: "cloud-ide:ide-sources-guard",
    apply: "serve",
    enforce: "pre",
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (skip?.(req)) return next();
        const url = req.url ?? "/";
        const kind = sourceRequestKind(url, fileOf);
        if (kind === "pass") return next();
        if (kind === "graph") {
          // Looked up, never resolved: resolving a bare name (`/@id/vitest`) could make Vite optimise it.
          const graph = server.environments.client.moduleGraph;
          const module = graphKeys(url)
            .map((key) => graph.urlToModuleMap.get(key))
            .find((found) => found !== undefined);
          // A module is the page's when something of the page imports it (a request alone adds none).
          if (module && module.importers.size > 0) return next();
        }
        res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
        res.end("Not Found\n");
      });
    },
  };
}
