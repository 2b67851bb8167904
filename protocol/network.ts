/**
 * Where a workspace may connect: its network policy (a mode and an allow list
 * of hostnames), the secrets the Worker adds to its outbound HTTPS requests,
 * and the log of what it asked for. Shared by the Worker (which enforces it)
 * and the app (the Network panel).
 */

/**
 * - `open`: the container reaches the Internet directly; nothing is intercepted or logged.
 * - `allowlist`: no direct Internet; HTTP (port 80) and HTTPS (port 443) to a listed host
 *   pass through the Worker, which logs every request and adds secrets; the rest gets 403.
 * - `off`: nothing leaves (HTTP and HTTPS are still answered by the Worker: 403, logged).
 */
export type NetworkMode = "open" | "allowlist" | "off";
export const NETWORK_MODES: readonly NetworkMode[] = ["allowlist", "off", "open"];

export interface NetworkPolicy {
  mode: NetworkMode;
  /** Exact hostnames (`registry.npmjs.org`) and `*.suffix` patterns (`*.github.com`: any name below it). */
  allow: string[];
}

/** What a new workspace may reach: the package registries and code hosts a developer needs. */
export const DEFAULT_ALLOW: readonly string[] = [
  "registry.npmjs.org",
  "registry.yarnpkg.com",
  "pypi.org",
  "files.pythonhosted.org",
  "github.com",
  "*.github.com",
  "*.githubusercontent.com",
  "deb.debian.org",
  "security.debian.org",
];

export const DEFAULT_POLICY: NetworkPolicy = { mode: "allowlist", allow: [...DEFAULT_ALLOW] };

export const MAX_ALLOW_ENTRIES = 256;
export const MAX_SECRETS = 32;
export const MAX_SECRET_HOSTS = 16;
export const MAX_SECRET_VALUE_LENGTH = 8192;
export const SECRET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A secret as the API shows it: never its value. */
export interface SecretInfo {
  name: string;
  /** Host patterns it is sent to (HTTPS only), like the allow list's. */
  hosts: string[];
  /** The request header it sets, e.g. `Authorization`. */
  header: string;
  /** ISO 8601 */
  updatedAt: string;
}

/** `PUT /api/workspaces/{id}/network/secrets/{name}` */
export interface SecretInput {
  /** The header's whole value, e.g. `Bearer …`, or `basicAuthorization(user, token)`. */
  value: string;
  hosts: string[];
  /** `Authorization` when absent. */
  header?: string;
}

/** `GET /api/workspaces/{id}/network` (and the answer to `PUT`). */
export interface NetworkSettings extends NetworkPolicy {
  secrets: SecretInfo[];
  /**
   * The mode the running container started with (null when none runs). A
   * change between `open` and the other two takes a restart: the container's
   * Internet access is fixed when it starts.
   */
  containerMode: NetworkMode | null;
  /** False when the deployment keeps every workspace off the Internet (`SANDBOX_INTERNET=false`). */
  openAvailable: boolean;
  /** Set on a `PUT` answer when the container was restarted to apply it. */
  restarted?: boolean;
}

/** `PUT /api/workspaces/{id}/network` */
export interface NetworkUpdate extends NetworkPolicy {
  /** Confirms a restart when the mode change needs one (otherwise such a change is refused with 409). */
  restart?: boolean;
}

/** One outbound request the Worker saw. */
export interface EgressLogEntry {
  /** Increasing; `GET .../network/log?after=ID` returns newer entries. */
  id: number;
  /** ISO 8601 */
  at: string;
  method: string;
  scheme: "http" | "https";
  host: string;
  /** The path, without the query. */
  path: string;
  verdict: "allowed" | "blocked";
  /** The answer's status (403 for a blocked one), null when no answer came (see `error`). */
  status: number | null;
  /** Why an allowed request failed (no answer from the host). */
  error?: string;
  /** Names of the secrets added to it. */
  secrets: string[];
  /** Time from the Worker's fetch to the answer's headers. */
  ms?: number;
}

/** `GET /api/workspaces/{id}/network/log` */
export interface EgressLog {
  entries: EgressLogEntry[];
  /** Whether the running container's requests pass through the Worker (false in `open`, or with no container). */
  intercepting: boolean;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Whether a host (as a request names it, or a pattern's name without `*.`)
 * is an IP address in any spelling, or no hostname at all. The WHATWG URL
 * parser, which fetch and browsers use, decides: it reads `127.1`,
 * `0x7f.0.0.1`, `2130706433` and `0.0.1` as IPv4 addresses (and refuses a
 * name whose last label is a number that is no address).
 */
export function isAddressHost(host: string): boolean {
  if (host.includes("[") || host.includes(":")) return true;
  let hostname: string;
  try {
    hostname = new URL(`http://${host}/`).hostname;
  } catch {
    return true;
  }
  return /^\d{1,3}(?:\.\d{1,3}){3}$/.test(hostname);
}

/** `localhost` and its subdomains: this machine, wherever the name is resolved. */
export function isLocalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/**
 * A host pattern as a person typed it, lowercased, or why it is not one: an
 * exact hostname with at least one dot, or `*.` and such a suffix. No scheme,
 * port, path, IP address or bare `*`.
 */
export function checkHostPattern(input: unknown): Checked<string> {
  if (typeof input !== "string") return { ok: false, reason: "a host must be a string" };
  const value = input.trim().toLowerCase().replace(/\.$/, "");
  if (value === "") return { ok: false, reason: "a host is empty" };
  const shown = JSON.stringify(input.slice(0, 80));
  if (value === "*") return { ok: false, reason: `${shown}: "*" is not a host; list hosts, or use the open mode` };
  if (/[/:@?#\s]/.test(value)) {
    return { ok: false, reason: `${shown}: give a hostname only, without scheme, port, path or spaces` };
  }
  const name = value.startsWith("*.") ? value.slice(2) : value;
  if (name.includes("*")) {
    return { ok: false, reason: `${shown}: a wildcard may only start a pattern, as in *.example.com` };
  }
  if (isAddressHost(name)) {
    return { ok: false, reason: `${shown}: IP addresses (in any spelling) cannot be allowed; use the hostname` };
  }
  if (name.length > 253) return { ok: false, reason: `${shown}: a hostname has at most 253 characters` };
  const labels = name.split(".");
  if (labels.length < 2) return { ok: false, reason: `${shown}: a hostname needs a dot (example.com)` };
  if (labels.some((label) => !LABEL.test(label))) {
    return { ok: false, reason: `${shown}: each part of a hostname is 1-63 letters, digits or inner hyphens` };
  }
  if (labels.at(-1) === "localhost") return { ok: false, reason: `${shown}: localhost names cannot be allowed` };
  return { ok: true, value };
}

/** A list of host patterns, checked, lowercased and without duplicates. */
export function checkHostList(input: unknown, what: string, max: number): Checked<string[]> {
  if (!Array.isArray(input)) return { ok: false, reason: `${what} must be an array of hostnames` };
  if (input.length > max) return { ok: false, reason: `${what} may have at most ${max} entries` };
  const out: string[] = [];
  for (const entry of input) {
    const checked = checkHostPattern(entry);
    if (!checked.ok) return { ok: false, reason: `${what}: ${checked.reason}` };
    if (!out.includes(checked.value)) out.push(checked.value);
  }
  return { ok: true, value: out };
}

export function isNetworkMode(value: unknown): value is NetworkMode {
  return typeof value === "string" && (NETWORK_MODES as readonly string[]).includes(value);
}

/** A policy from a request body, or why it is not one. */
export function checkPolicy(body: Record<string, unknown>): Checked<NetworkPolicy> {
  if (!isNetworkMode(body.mode)) return { ok: false, reason: `mode must be one of: ${NETWORK_MODES.join(", ")}` };
  const allow = checkHostList(body.allow ?? [], "allow", MAX_ALLOW_ENTRIES);
  if (!allow.ok) return allow;
  return { ok: true, value: { mode: body.mode, allow: allow.value } };
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers a secret may not set: they frame the request or name its destination. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "proxy-authorization",
  "proxy-connection",
]);

/** A secret from a request body (its name comes from the URL), or why it is not one. */
export function checkSecret(body: Record<string, unknown>): Checked<Required<SecretInput>> {
  const header = body.header ?? "Authorization";
  if (typeof header !== "string" || !TOKEN.test(header) || header.length > 64) {
    return { ok: false, reason: "header must be an HTTP header name, such as Authorization" };
  }
  if (RESERVED_HEADERS.has(header.toLowerCase())) {
    return { ok: false, reason: `a secret cannot set the ${header} header` };
  }
  const value = body.value;
  if (typeof value !== "string" || value.length === 0) return { ok: false, reason: "value must be a non-empty string" };
  if (value.length > MAX_SECRET_VALUE_LENGTH) {
    return { ok: false, reason: `value may have at most ${MAX_SECRET_VALUE_LENGTH} characters` };
  }
  // A header value: visible ASCII, spaces and tabs, never a line break that could add a header.
  if (!/^[\t\x20-\x7e]+$/.test(value)) {
    return { ok: false, reason: "value may hold printable ASCII characters only (no line breaks)" };
  }
  if (Array.isArray(body.hosts) && body.hosts.some((host) => typeof host === "string" && host.trim() === "*")) {
    return { ok: false, reason: 'hosts: a secret is never sent to every host ("*"); name the hosts it is for' };
  }
  const hosts = checkHostList(body.hosts, "hosts", MAX_SECRET_HOSTS);
  if (!hosts.ok) return hosts;
  if (hosts.value.length === 0) return { ok: false, reason: "hosts: name at least one host the secret is for" };
  return { ok: true, value: { value, hosts: hosts.value, header } };
}

export function isSecretName(value: string): boolean {
  return SECRET_NAME_PATTERN.test(value);
}

/** Whether `host` (lowercase, no port) matches a pattern: itself, or for `*.suffix` any name below suffix. */
export function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1));
  return host === pattern;
}

export function matchesAny(patterns: readonly string[], host: string): boolean {
  return patterns.some((pattern) => hostMatches(pattern, host));
}

/** Whether going from the running container's mode to `next` needs a new container. */
export function needsRestart(containerMode: NetworkMode | null, next: NetworkMode): boolean {
  if (containerMode === null) return false;
  return (containerMode === "open") !== (next === "open");
}

/** An `Authorization` value for HTTP basic auth, e.g. `basicAuthorization("x-access-token", token)` for git. */
export function basicAuthorization(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}
