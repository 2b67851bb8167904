/**
 * What the bridge says to a shared server on the pages' behalf: the one
 * `initialize` it sends (the first page's, with the workspace's root and the
 * capabilities the bridge itself provides), and its answers to the server's
 * own requests, which no single page could answer for all of them.
 */
import { JsonRpcErrorCode } from "../../protocol/language-servers";
import { WORKSPACE_ROOT } from "../sandbox/environment";
import type { JsonRpcMessage } from "./json-rpc";

export const ROOT_URI = `file://${WORKSPACE_ROOT}`;
const WORKSPACE_FOLDERS = [{ uri: ROOT_URI, name: "workspace" }];

type Json = Record<string, unknown>;

/** The page's initialize params as the server gets them. */
export function sharedInitializeParams(params: unknown, initializationOptions: Json): Json {
  const page = (typeof params === "object" && params !== null ? params : {}) as Json;
  const capabilities = structuredClone((page.capabilities ?? {}) as Json);
  // The bridge answers these for every page: configuration, folders, and
  // file changes from the workspace's watcher.
  capabilities.workspace = {
    ...(capabilities.workspace as Json | undefined),
    configuration: true,
    workspaceFolders: true,
    didChangeWatchedFiles: { dynamicRegistration: true },
    applyEdit: false,
  };
  capabilities.window = { ...(capabilities.window as Json | undefined), workDoneProgress: false };
  // Pages take diagnostics as they are pushed; pulling them is not bridged.
  const textDocument = capabilities.textDocument as Json | undefined;
  if (textDocument) delete textDocument.diagnostic;
  return {
    ...page,
    processId: null,
    rootUri: ROOT_URI,
    rootPath: WORKSPACE_ROOT,
    workspaceFolders: WORKSPACE_FOLDERS,
    capabilities,
    initializationOptions: { ...((page.initializationOptions as Json | undefined) ?? {}), ...initializationOptions },
    trace: "off",
  };
}

/**
 * The answer to a request from the server (it has an id and a method).
 * `settings` answers `workspace/configuration` one section at a time.
 */
export function answerServerRequest(
  request: JsonRpcMessage,
  settings: (section: string | undefined) => unknown,
): JsonRpcMessage {
  const id = request.id ?? null;
  const result = (value: unknown): JsonRpcMessage => ({ jsonrpc: "2.0", id, result: value });
  const method = request.method ?? "";
  switch (method) {
    case "workspace/configuration": {
      const items = ((request.params as { items?: { section?: string }[] } | undefined)?.items ?? []) as {
        section?: string;
      }[];
      return result(items.map((item) => settings(item.section) ?? null));
    }
    case "workspace/workspaceFolders":
      return result(WORKSPACE_FOLDERS);
    case "client/registerCapability":
    case "client/unregisterCapability":
    case "window/workDoneProgress/create":
    case "window/showMessageRequest":
    case "window/showDocument":
      return result(null);
    case "workspace/applyEdit":
      return result({
        applied: false,
        failureReason: "Edits from the server are applied by the page, not the bridge.",
      });
  }
  // workspace/semanticTokens/refresh, workspace/inlayHint/refresh, ...: nothing to refresh.
  if (method.endsWith("/refresh")) return result(null);
  return {
    jsonrpc: "2.0",
    id,
    error: { code: JsonRpcErrorCode.MethodNotFound, message: `The bridge does not handle ${method}.` },
  };
}
