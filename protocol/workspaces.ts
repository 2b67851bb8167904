/** One of the caller's workspaces: `GET /api/workspaces` lists them. */
export interface WorkspaceSummary {
  /** Random, stable, lowercase letters and digits: names the Durable Object and preview hostnames. */
  id: string;
  name: string;
  /** When it was made; for a shared one, when it was shared with the caller. */
  createdAt: string;
  /** Present when someone else owns it and shared it with the caller (issue 24): as what. */
  shared?: { owner: string; role: "editor" | "viewer" };
}

/** `POST /api/workspaces` and `PATCH /api/workspaces/{id}` */
export interface WorkspaceNameRequest {
  name: string;
}

/**
 * What a new workspace's /workspace holds on its first start: the Vite + React
 * + TypeScript app with its dependencies installed (the default), or nothing
 * (for importing an archive).
 */
export const WORKSPACE_TEMPLATES = ["vite-react", "empty"] as const;
export type WorkspaceTemplate = (typeof WORKSPACE_TEMPLATES)[number];
export const DEFAULT_TEMPLATE: WorkspaceTemplate = "vite-react";

/** `POST /api/workspaces` */
export interface CreateWorkspaceRequest extends WorkspaceNameRequest {
  template?: WorkspaceTemplate;
  /** Clone this repository into /workspace on the first start (the template is then "empty"). */
  repository?: { url: string; branch?: string };
  /** The id of the caller's spare (`POST /api/workspaces/spare`): its container is already running. */
  spare?: string;
}

/**
 * `POST /api/workspaces/spare`: the container of the caller's next new
 * workspace, started ahead; `POST /api/workspaces` takes it until `expiresAt`.
 */
export interface SpareWorkspace {
  id: string;
  expiresAt: string;
}

export function isWorkspaceTemplate(value: unknown): value is WorkspaceTemplate {
  return typeof value === "string" && (WORKSPACE_TEMPLATES as readonly string[]).includes(value);
}

export const WORKSPACE_NAME_MAX_LENGTH = 100;

/**
 * Checks a workspace name: 1-100 characters after trimming, no control
 * characters. Returns the trimmed name, or the reason it is refused.
 */
export function checkWorkspaceName(value: unknown): { name: string } | { error: string } {
  if (typeof value !== "string") return { error: "The name must be a string." };
  const name = value.trim();
  if (name.length === 0) return { error: "The name cannot be empty." };
  if (name.length > WORKSPACE_NAME_MAX_LENGTH) {
    return { error: `The name has ${name.length} characters; the limit is ${WORKSPACE_NAME_MAX_LENGTH}.` };
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(name)) return { error: "The name cannot contain control characters." };
  return { name };
}
