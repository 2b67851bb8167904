/**
 * Requests on preview hostnames, `{port}-{workspace}-{token}.{PREVIEW_DOMAIN}`.
 * The Worker sends them here before any other routing or sign-in: a preview's
 * token is its own permission, checked by the workspace's Durable Object.
 */
import { parsePreviewLabel } from "../../protocol/previews";
import { previewNotFound } from "./pages";

/**
 * Marks a request the Worker forwards to a Durable Object as a preview request
 * (`{port} {token}`). The Durable Object trusts it because the Worker removes
 * any copy a client sends (see {@link withoutPreviewHeader}).
 */
export const PREVIEW_HEADER = "X-Cloud-Ide-Preview";

/**
 * The preview label of a request's host, or undefined when the host is not
 * under PREVIEW_DOMAIN. (The bare domain is not a preview: under `vite dev`
 * it is the IDE itself, `localhost:{PORT}`.)
 */
export function previewHostLabel(request: Request, env: Env): string | undefined {
  const host = new URL(request.url).host.toLowerCase();
  const suffix = `.${env.PREVIEW_DOMAIN.toLowerCase()}`;
  return host.endsWith(suffix) ? host.slice(0, -suffix.length) : undefined;
}

export async function handlePreviewRequest(request: Request, env: Env, label: string): Promise<Response> {
  const preview = parsePreviewLabel(label);
  if (!preview) return previewNotFound();
  const headers = new Headers(request.headers);
  headers.set(PREVIEW_HEADER, `${preview.port} ${preview.token}`);
  // Not workspaceStub(): preview visitors are not signed in. The Durable
  // Object answers 404 unless the token is a live grant for this port, and an
  // unknown workspace has no grants.
  const stub = env.Workspace.getByName(preview.workspaceId);
  return stub.fetch(new Request(request, { headers }));
}

/** The request without a client-sent PREVIEW_HEADER, for everything that is not a preview. */
export function withoutPreviewHeader(request: Request): Request {
  if (!request.headers.has(PREVIEW_HEADER)) return request;
  const headers = new Headers(request.headers);
  headers.delete(PREVIEW_HEADER);
  return new Request(request, { headers });
}
