/**
 * Error vocabulary shared by the Worker and the app. Every JSON error body is
 * `{ "code": ErrorCode, "message": string }`; the message is meant for people.
 */
export const ErrorCode = {
  BAD_REQUEST: "BAD_REQUEST",
  INVALID_JSON: "INVALID_JSON",
  INVALID_WORKSPACE_ID: "INVALID_WORKSPACE_ID",
  INVALID_TERMINAL_NAME: "INVALID_TERMINAL_NAME",
  /** No language server for that name (protocol/language-servers.ts lists them). */
  UNKNOWN_LANGUAGE: "UNKNOWN_LANGUAGE",
  INVALID_PORT: "INVALID_PORT",
  INVALID_TTL: "INVALID_TTL",
  /** An import archive that is not a gzip-compressed tar, or that tar refused. */
  INVALID_ARCHIVE: "INVALID_ARCHIVE",
  INVALID_WORKSPACE_NAME: "INVALID_WORKSPACE_NAME",
  INVALID_TEMPLATE: "INVALID_TEMPLATE",
  INVALID_PATH: "INVALID_PATH",
  /** A search that cannot run: a regular expression that does not compile, a bad glob, a missing query. */
  INVALID_SEARCH: "INVALID_SEARCH",
  IS_A_DIRECTORY: "IS_A_DIRECTORY",
  NOT_A_DIRECTORY: "NOT_A_DIRECTORY",
  /** No valid session (sign in again). */
  UNAUTHENTICATED: "UNAUTHENTICATED",
  WRONG_PASSWORD: "WRONG_PASSWORD",
  /** A state-changing request or WebSocket upgrade from another origin. */
  FORBIDDEN_ORIGIN: "FORBIDDEN_ORIGIN",
  PATH_OUTSIDE_WORKSPACE: "PATH_OUTSIDE_WORKSPACE",
  PERMISSION_DENIED: "PERMISSION_DENIED",
  /** The caller's role in the workspace is below what the route needs (protocol/roles.ts). */
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  FILE_NOT_FOUND: "FILE_NOT_FOUND",
  UPLOAD_NOT_FOUND: "UPLOAD_NOT_FOUND",
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  FILE_EXISTS: "FILE_EXISTS",
  DIRECTORY_NOT_EMPTY: "DIRECTORY_NOT_EMPTY",
  CROSS_DEVICE: "CROSS_DEVICE",
  /** The workspace is not in a state where this operation makes sense (the message says why). */
  INVALID_STATE: "INVALID_STATE",
  /** Import goes only into an empty /workspace, so it never overwrites work. */
  WORKSPACE_NOT_EMPTY: "WORKSPACE_NOT_EMPTY",
  /** The workspace sleeps and the request asked not to wake it. */
  WORKSPACE_ASLEEP: "WORKSPACE_ASLEEP",
  /** The file changed since the client read it (If-Match). */
  FILE_CHANGED: "FILE_CHANGED",
  /** A JSON body was expected. */
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  /** The body is over this route's limit (the message says which); nothing of it was used. */
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  /** A file body must say its length (Content-Length), so a limit can be applied before it is used. */
  LENGTH_REQUIRED: "LENGTH_REQUIRED",
  /** A WebSocket route asked without `Upgrade: websocket`. */
  UPGRADE_REQUIRED: "UPGRADE_REQUIRED",
  /** Too many failed sign-ins or device-login starts from this address, or unknown device codes from this person; see Retry-After. */
  TOO_MANY_ATTEMPTS: "TOO_MANY_ATTEMPTS",
  /** The caller already holds as many connections of this kind as one person may (protocol/connections.ts). */
  TOO_MANY_CONNECTIONS: "TOO_MANY_CONNECTIONS",
  /** A bug: the message is fixed and names a request id; the details are in the log. */
  INTERNAL: "INTERNAL",
  /** The Worker lacks IDE_PASSWORD / SESSION_SECRET. */
  MISCONFIGURED: "MISCONFIGURED",
  /** A file operation failed in a way no other code describes (an unusual Linux error). */
  FILE_ERROR: "FILE_ERROR",
  /** The container could not be started or reached; retrying may help. */
  CONTAINER_UNAVAILABLE: "CONTAINER_UNAVAILABLE",
  /** The latest snapshot could not be restored; start fresh or import an archive. */
  SNAPSHOT_RESTORE_FAILED: "SNAPSHOT_RESTORE_FAILED",
  /** Taking a snapshot failed; the container keeps running and nothing was stopped. */
  SAVE_FAILED: "SAVE_FAILED",
  NO_SPACE: "NO_SPACE",
  /** A network policy that is not one (the message gives the reason: a bad host pattern, an unknown mode). */
  INVALID_NETWORK_POLICY: "INVALID_NETWORK_POLICY",
  /** A secret that is not one (no hosts, "*", a header it may not set, a bad name or value). */
  INVALID_SECRET: "INVALID_SECRET",
  /** The change takes a new container (the Internet setting is fixed at start): send it again with `restart: true`. */
  RESTART_REQUIRED: "RESTART_REQUIRED",
  /** The deployment keeps every workspace off the Internet (SANDBOX_INTERNET=false): no `open` mode. */
  INTERNET_DISABLED: "INTERNET_DISABLED",
  /** /workspace is not a Git repository (the source control panel offers to initialize it). */
  NOT_A_REPOSITORY: "NOT_A_REPOSITORY",
  /** git refused or failed; the message is git's own. Nothing was changed that git did not report. */
  GIT_REFUSED: "GIT_REFUSED",
  INVALID_BRANCH_NAME: "INVALID_BRANCH_NAME",
  INVALID_COMMIT_MESSAGE: "INVALID_COMMIT_MESSAGE",
  INVALID_GIT_URL: "INVALID_GIT_URL",
  /** No backup with that id in this workspace. */
  BACKUP_NOT_FOUND: "BACKUP_NOT_FOUND",
  /** A backup whose object is not what was stored (its size or SHA-256 differs, or it does not unpack): nothing was changed. */
  BACKUP_INTEGRITY: "BACKUP_INTEGRITY",
  /** The backup store (R2) could not be reached or refused the operation; try again. */
  BACKUP_UNAVAILABLE: "BACKUP_UNAVAILABLE",
  /** A save reached the container but not the save journal (R2): not acknowledged, so save again. */
  JOURNAL_UNAVAILABLE: "JOURNAL_UNAVAILABLE",
  /** A request from the container that the workspace's network policy does not allow (the Outbound entrypoint's answer). */
  BLOCKED_BY_NETWORK_POLICY: "BLOCKED_BY_NETWORK_POLICY",
  /** An invite request that is not one (its role, lifetime or number of uses). */
  INVALID_INVITE: "INVALID_INVITE",
  /** An invite link that signs nobody in: expired, revoked or used up (the message says which). */
  INVITE_UNUSABLE: "INVITE_UNUSABLE",
  /** A guest's display name that is not one (empty, too long, control characters). */
  INVALID_DISPLAY_NAME: "INVALID_DISPLAY_NAME",
  /** An agent token that cannot be made: a bad name or scope (the message says which). */
  INVALID_AGENT_TOKEN: "INVALID_AGENT_TOKEN",
  /** The MCP endpoint without a valid agent token: none, malformed, unknown, expired, revoked, or another workspace's. */
  AGENT_TOKEN_REFUSED: "AGENT_TOKEN_REFUSED",
  /** The workspace already has the most live agent tokens it may hold: revoke one first. */
  TOO_MANY_AGENT_TOKENS: "TOO_MANY_AGENT_TOKENS",
  /** An exact-replacement edit whose text does not occur in the file: nothing was changed. */
  EDIT_NO_MATCH: "EDIT_NO_MATCH",
  /** An exact-replacement edit whose text occurs more than once: nothing was changed. */
  EDIT_AMBIGUOUS: "EDIT_AMBIGUOUS",
  /** The agent panel's conversation is busy: a turn runs, or an approval waits. */
  AGENT_BUSY: "AGENT_BUSY",
  /** The agent panel has no model: the message says what the deployer must set. */
  AGENT_NOT_CONFIGURED: "AGENT_NOT_CONFIGURED",
  /** The agent's model failed to answer (unreachable, refused the key, a bad answer): the message says how. */
  AGENT_MODEL_FAILED: "AGENT_MODEL_FAILED",
  /** A personal access token's name or lifetime is not acceptable. */
  INVALID_ACCESS_TOKEN: "INVALID_ACCESS_TOKEN",
  /** The user already has the most live personal access tokens they may hold: revoke one first. */
  TOO_MANY_ACCESS_TOKENS: "TOO_MANY_ACCESS_TOKENS",
  /** An SSH public key that is not one (or too weak: RSA under 3072 bits, DSA), or a bad name. */
  INVALID_SSH_KEY: "INVALID_SSH_KEY",
  /** The same SSH public key is registered already. */
  SSH_KEY_EXISTS: "SSH_KEY_EXISTS",
  /** The user already has the most SSH keys they may register: remove one first. */
  TOO_MANY_SSH_KEYS: "TOO_MANY_SSH_KEYS",
  /** A device login that is unknown, expired, or used: start `cloud-ide login` again. */
  DEVICE_LOGIN_UNUSABLE: "DEVICE_LOGIN_UNUSABLE",
  /** A device login nobody approved yet: poll again after the interval. */
  DEVICE_LOGIN_PENDING: "DEVICE_LOGIN_PENDING",
  /** The workspace's image has no sshd (openssh-server), or sshd would not start. */
  SSH_UNAVAILABLE: "SSH_UNAVAILABLE",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * The one table of HTTP statuses: every error answers the status of its code
 * (errorStatus() below reads it, with HTTP's one exception).
 */
export const ERROR_STATUS: { readonly [C in ErrorCode]: number } = {
  BAD_REQUEST: 400,
  INVALID_JSON: 400,
  INVALID_WORKSPACE_ID: 400,
  INVALID_TERMINAL_NAME: 400,
  UNKNOWN_LANGUAGE: 400,
  INVALID_PORT: 400,
  INVALID_TTL: 400,
  INVALID_ARCHIVE: 400,
  INVALID_WORKSPACE_NAME: 400,
  INVALID_TEMPLATE: 400,
  INVALID_PATH: 400,
  INVALID_SEARCH: 400,
  IS_A_DIRECTORY: 400,
  NOT_A_DIRECTORY: 400,
  UNAUTHENTICATED: 401,
  WRONG_PASSWORD: 401,
  FORBIDDEN_ORIGIN: 403,
  PATH_OUTSIDE_WORKSPACE: 403,
  PERMISSION_DENIED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  FILE_NOT_FOUND: 404,
  UPLOAD_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  FILE_EXISTS: 409,
  DIRECTORY_NOT_EMPTY: 409,
  CROSS_DEVICE: 409,
  INVALID_STATE: 409,
  WORKSPACE_NOT_EMPTY: 409,
  WORKSPACE_ASLEEP: 409,
  FILE_CHANGED: 412,
  LENGTH_REQUIRED: 411,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UPGRADE_REQUIRED: 426,
  TOO_MANY_ATTEMPTS: 429,
  TOO_MANY_CONNECTIONS: 429,
  INTERNAL: 500,
  MISCONFIGURED: 500,
  FILE_ERROR: 500,
  CONTAINER_UNAVAILABLE: 503,
  SNAPSHOT_RESTORE_FAILED: 503,
  SAVE_FAILED: 503,
  NO_SPACE: 507,
  INVALID_NETWORK_POLICY: 400,
  INVALID_SECRET: 400,
  RESTART_REQUIRED: 409,
  INTERNET_DISABLED: 403,
  NOT_A_REPOSITORY: 409,
  GIT_REFUSED: 409,
  INVALID_BRANCH_NAME: 400,
  INVALID_COMMIT_MESSAGE: 400,
  INVALID_GIT_URL: 400,
  BACKUP_NOT_FOUND: 404,
  BACKUP_INTEGRITY: 422,
  BACKUP_UNAVAILABLE: 503,
  JOURNAL_UNAVAILABLE: 503,
  BLOCKED_BY_NETWORK_POLICY: 403,
  INVALID_INVITE: 400,
  INVITE_UNUSABLE: 410,
  INVALID_DISPLAY_NAME: 400,
  INVALID_AGENT_TOKEN: 400,
  AGENT_TOKEN_REFUSED: 401,
  TOO_MANY_AGENT_TOKENS: 409,
  EDIT_NO_MATCH: 409,
  EDIT_AMBIGUOUS: 409,
  AGENT_BUSY: 409,
  AGENT_NOT_CONFIGURED: 503,
  AGENT_MODEL_FAILED: 502,
  INVALID_ACCESS_TOKEN: 400,
  TOO_MANY_ACCESS_TOKENS: 409,
  INVALID_SSH_KEY: 400,
  SSH_KEY_EXISTS: 409,
  TOO_MANY_SSH_KEYS: 409,
  DEVICE_LOGIN_UNUSABLE: 410,
  DEVICE_LOGIN_PENDING: 428,
  SSH_UNAVAILABLE: 503,
};

/**
 * The status an error answers: its code's, except a failed HTTP precondition
 * (`If-None-Match: *` on a file that exists answers FILE_EXISTS), which HTTP
 * says is 412.
 */
export function errorStatus(code: ErrorCode, precondition = false): number {
  return precondition ? 412 : ERROR_STATUS[code];
}

/** The body of every error response from `/api/`. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
}

/** Checks the shape of a value that claims to be an {@link ErrorBody}. */
export function isErrorBody(value: unknown): value is ErrorBody {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ErrorBody).code === "string" &&
    typeof (value as ErrorBody).message === "string"
  );
}
