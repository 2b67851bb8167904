/**
 * Previews: a dev server in a workspace's container, reached on a hostname of
 * its own, `{port}-{workspace id}-{token}.{PREVIEW_DOMAIN}`. The token is an
 * access grant for that one port of that one workspace, with an expiry.
 */
import { WORKSPACE_ID_PATTERN } from "./ids";

export const PREVIEW_PORT_MIN = 1024;
export const PREVIEW_PORT_MAX = 65535;

/** Share links live from 5 minutes to 7 days. */
export const SHARE_TTL_MIN_SECONDS = 300;
export const SHARE_TTL_MAX_SECONDS = 7 * 24 * 3600;

/** Tokens are lowercase letters and digits only, so the hostname label splits one way. */
export const PREVIEW_TOKEN_PATTERN = /^[a-z0-9]{16,64}$/;
/** A DNS label (and so a wildcard certificate's reach) is at most 63 characters. */
export const MAX_LABEL_LENGTH = 63;

export interface PreviewLabel {
  port: number;
  workspaceId: string;
  token: string;
}

const LABEL_PATTERN = new RegExp(
  `^(\\d{4,5})-(${WORKSPACE_ID_PATTERN.source.slice(1, -1)})-(${PREVIEW_TOKEN_PATTERN.source.slice(1, -1)})$`,
);

export function isPreviewPort(port: number): boolean {
  return Number.isInteger(port) && port >= PREVIEW_PORT_MIN && port <= PREVIEW_PORT_MAX;
}

/** Parses the first hostname label of a preview; anything else is undefined. */
export function parsePreviewLabel(label: string): PreviewLabel | undefined {
  const match = LABEL_PATTERN.exec(label);
  if (!match) return undefined;
  const [, portText = "", workspaceId = "", token = ""] = match;
  // "08080" would be a second spelling of the same preview.
  if (portText.startsWith("0")) return undefined;
  const port = Number(portText);
  if (!isPreviewPort(port)) return undefined;
  return { port, workspaceId, token };
}

export function previewLabel({ port, workspaceId, token }: PreviewLabel): string {
  return `${port}-${workspaceId}-${token}`;
}

/** The preview's URL; `protocol` is the app's own ("https:" in production). */
export function previewUrl(preview: PreviewLabel, domain: string, protocol: string): string {
  return `${protocol}//${previewLabel(preview)}.${domain}/`;
}

/** `POST /api/workspaces/{id}/previews/{port}`: the owner's own access, renewed while the pane is open. */
export interface PreviewAccess {
  /** The grant's public id: send it back (`?grant=`) to renew this same URL. */
  id: string;
  port: number;
  url: string;
  /** ISO 8601 */
  expiresAt: string;
}

/** `POST|GET /api/workspaces/{id}/previews/{port}/shares` */
export interface ShareLink {
  id: string;
  /** "owner": the URL an owner's preview pane shows (renewed while it is open); "share": a share link. */
  kind: "share" | "owner";
  port: number;
  url: string;
  /** ISO 8601 */
  expiresAt: string;
}

/** `GET /api/workspaces/{id}/previews/{port}/shares` */
export interface GrantList {
  shares: ShareLink[];
  /** The owner's preview panes' own URLs (kind "owner"), listed and revocable like shares. */
  owner: ShareLink[];
}

export interface CreateShareRequest {
  ttlSeconds: number;
}

/** A TCP port something listens on inside the container. */
export interface ListeningPort {
  port: number;
  /** The listening process's command line, when it can be seen. */
  process?: string;
  /**
   * Listens on 127.0.0.1 or ::1 only. getTcpPort() cannot reach such a port,
   * so the resident agent forwards it to the container's own address.
   */
  loopbackOnly: boolean;
  /** A loopback-only port the resident agent forwards: previews reach it. */
  forwarded?: boolean;
  /** Why a loopback-only port could not be forwarded, in words a person can act on. */
  forwardError?: string;
}

/**
 * The dev server the IDE's Run button starts (`npm run dev` in /workspace):
 * `running`, `exited` (with the end of its output) or `stopped` (never started).
 */
export interface DevServerState {
  state: "running" | "exited" | "stopped";
  command: string;
  /** The last lines of its output. */
  output?: string;
}

/** `GET /api/workspaces/{id}/previews` */
export interface PreviewsOverview {
  ports: ListeningPort[];
  devServer: DevServerState;
}
