/**
 * Errors in the shape of `@cloudflare/sandbox` 1.x: `SandboxFileError` is not a
 * class; `SandboxFileError.is(error)` recognizes it, also after Durable Object
 * RPC. `code` is the Linux error name (ENOENT, EEXIST, ...) or UNKNOWN.
 */
export type FileOperation =
  | "readFile"
  | "writeFile"
  | "stat"
  | "lstat"
  | "readDirectory"
  | "mkdir"
  | "rename"
  | "remove";

export interface SandboxFileError extends Error {
  name: "SandboxFileError";
  code: string;
  operation: FileOperation | string;
  path: string;
  destination?: string;
  detail: string;
}

/** Detail of the EXDEV error for a path that resolves out of the confining root (like openat2 RESOLVE_BENEATH). */
export const OUTSIDE_ROOT_DETAIL = "Resolves outside the workspace through a symbolic link";

export const SandboxFileError = {
  create(fields: { code: string; operation: string; path: string; destination?: string; detail: string }) {
    const error = new Error(`${fields.operation} '${fields.path}': ${fields.detail}`) as SandboxFileError;
    error.name = "SandboxFileError";
    Object.assign(error, fields);
    return error;
  },
  is(error: unknown): error is SandboxFileError {
    return (
      error instanceof Error &&
      error.name === "SandboxFileError" &&
      typeof (error as SandboxFileError).code === "string"
    );
  },
};

/** Files could not talk to its helper process (no python3, garbled output). */
export interface SandboxProtocolError extends Error {
  name: "SandboxProtocolError";
  code: "SANDBOX_PROTOCOL_ERROR";
  detail: string;
}

export const SandboxProtocolError = {
  create(detail: string): SandboxProtocolError {
    const error = new Error(`The file helper failed: ${detail}`) as SandboxProtocolError;
    error.name = "SandboxProtocolError";
    Object.assign(error, { code: "SANDBOX_PROTOCOL_ERROR", detail });
    return error;
  },
  is(error: unknown): error is SandboxProtocolError {
    return error instanceof Error && error.name === "SandboxProtocolError";
  },
};
