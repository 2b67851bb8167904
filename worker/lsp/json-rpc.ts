/**
 * JSON-RPC 2.0 messages as the bridge handles them, and the check of a frame
 * from the page: one WebSocket text frame is one message, and anything else
 * gets a JSON-RPC error back instead of reaching the server.
 */
import { JsonRpcErrorCode } from "../../protocol/language-servers";

export type JsonRpcId = number | string;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcMessage {
  jsonrpc: "2.0";
  id?: JsonRpcId | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: JsonRpcError;
}

export type ClientFrame = { ok: true; message: JsonRpcMessage } | { ok: false; reply: JsonRpcMessage };

/** Larger frames are refused: a didOpen of the biggest file the editor edits (5 MB) fits, with room. */
export const MAX_FRAME_CHARS = 16 * 1024 * 1024;

export const isRequest = (m: JsonRpcMessage): boolean => typeof m.method === "string" && m.id != null;
export const isNotification = (m: JsonRpcMessage): boolean => typeof m.method === "string" && m.id === undefined;

export function errorReply(id: JsonRpcId | null, code: number, message: string): JsonRpcMessage {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

/** Parses and checks one frame from the page. */
export function parseClientFrame(data: string | ArrayBuffer): ClientFrame {
  if (typeof data !== "string") {
    return refuse(null, JsonRpcErrorCode.InvalidRequest, "Send each JSON-RPC message as one text frame, not binary.");
  }
  if (data.length > MAX_FRAME_CHARS) {
    return refuse(null, JsonRpcErrorCode.InvalidRequest, `A message may have at most ${MAX_FRAME_CHARS} characters.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    return refuse(null, JsonRpcErrorCode.ParseError, `Parse error: ${(error as Error).message}`);
  }
  if (Array.isArray(value)) {
    return refuse(null, JsonRpcErrorCode.InvalidRequest, "Batches are not supported: send one message per frame.");
  }
  if (typeof value !== "object" || value === null) {
    return refuse(null, JsonRpcErrorCode.InvalidRequest, "A message is a JSON object.");
  }
  const message = value as Record<string, unknown>;
  const id = message.id;
  const validId = id === undefined || typeof id === "number" || typeof id === "string";
  const replyId = typeof id === "number" || typeof id === "string" ? id : null;
  if (message.jsonrpc !== "2.0")
    return refuse(replyId, JsonRpcErrorCode.InvalidRequest, 'A message needs "jsonrpc": "2.0".');
  if (!validId) return refuse(null, JsonRpcErrorCode.InvalidRequest, "An id is a number or a string.");
  if (message.method !== undefined && typeof message.method !== "string") {
    return refuse(replyId, JsonRpcErrorCode.InvalidRequest, "A method is a string.");
  }
  if (message.params !== undefined && (typeof message.params !== "object" || message.params === null)) {
    return refuse(replyId, JsonRpcErrorCode.InvalidRequest, "params is an object or an array.");
  }
  if (message.method === undefined && id === undefined) {
    return refuse(
      null,
      JsonRpcErrorCode.InvalidRequest,
      "A message has a method (request, notification) or an id (response).",
    );
  }
  return { ok: true, message: message as unknown as JsonRpcMessage };
}

function refuse(id: JsonRpcId | null, code: number, message: string): ClientFrame {
  return { ok: false, reply: errorReply(id, code, message) };
}
