/**
 * Language servers as both sides name them: one server per language per
 * workspace, reached at `/ws/workspaces/{id}/lsp/{language}`, and which file
 * goes to which server with which LSP language id.
 */

/** The servers the sandbox image has (Dockerfile, sandbox/language-servers/). */
export const LANGUAGE_SERVERS = ["typescript", "python", "css", "html", "json"] as const;

export type LanguageServerId = (typeof LANGUAGE_SERVERS)[number];

export function isLanguageServerId(value: string): value is LanguageServerId {
  return (LANGUAGE_SERVERS as readonly string[]).includes(value);
}

/** A file's server and the `languageId` its didOpen carries. */
export interface FileLanguage {
  server: LanguageServerId;
  languageId: string;
}

const BY_EXTENSION: Record<string, FileLanguage> = {
  ts: { server: "typescript", languageId: "typescript" },
  mts: { server: "typescript", languageId: "typescript" },
  cts: { server: "typescript", languageId: "typescript" },
  tsx: { server: "typescript", languageId: "typescriptreact" },
  js: { server: "typescript", languageId: "javascript" },
  mjs: { server: "typescript", languageId: "javascript" },
  cjs: { server: "typescript", languageId: "javascript" },
  jsx: { server: "typescript", languageId: "javascriptreact" },
  py: { server: "python", languageId: "python" },
  pyi: { server: "python", languageId: "python" },
  css: { server: "css", languageId: "css" },
  scss: { server: "css", languageId: "scss" },
  less: { server: "css", languageId: "less" },
  html: { server: "html", languageId: "html" },
  htm: { server: "html", languageId: "html" },
  json: { server: "json", languageId: "json" },
  jsonc: { server: "json", languageId: "jsonc" },
};

/** The server for a workspace path, by its extension; undefined when no server knows it. */
export function fileLanguage(path: string): FileLanguage | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return undefined;
  return BY_EXTENSION[name.slice(dot + 1)];
}

/** Extensions whose changes on disk each server is told about (workspace/didChangeWatchedFiles). */
export const WATCHED_EXTENSIONS: Record<LanguageServerId, readonly string[]> = {
  typescript: ["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "json"],
  python: ["py", "pyi", "toml", "json", "cfg", "ini"],
  css: ["css", "scss", "less"],
  html: ["html", "htm", "css", "js"],
  json: ["json", "jsonc"],
};

/** JSON-RPC error codes the bridge answers with (JSON-RPC 2.0 and LSP). */
export const JsonRpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InternalError: -32603,
  /** LSP: the server is not running yet (or any more) and cannot answer. */
  ServerNotInitialized: -32002,
  /** LSP: the request was cancelled (the server restarted under it). */
  RequestCancelled: -32800,
} as const;

/**
 * A notification the bridge adds (not LSP): the shared server's state, sent
 * to every page when it changes and to a page right after its initialize.
 */
export const SERVER_STATUS_METHOD = "$/cloudIde/serverStatus";

export interface ServerStatus {
  state: "starting" | "ready" | "restarting" | "unavailable";
  /** Why, for "restarting" and "unavailable". */
  message?: string;
}

/** The root every server is given; pages name files by URIs under it. */
export const WORKSPACE_URI = "file:///workspace";

/** A workspace path's URI, encoded as servers encode it (only unreserved characters stay). */
export function fileUri(path: string): string {
  const encoded = path
    .split("/")
    .map((segment) =>
      encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join("/");
  return `${WORKSPACE_URI}/${encoded}`;
}

/** The workspace path a URI names, or undefined when it is outside the workspace (a library's file). */
export function pathOfUri(uri: string): string | undefined {
  if (!uri.startsWith(`${WORKSPACE_URI}/`)) return undefined;
  try {
    const path = decodeURIComponent(uri.slice(WORKSPACE_URI.length + 1));
    return path.split("/").includes("..") ? undefined : path;
  } catch {
    return undefined;
  }
}
