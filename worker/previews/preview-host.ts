/**
 * Requests on preview hostnames, `{port}-{workspace}-{token}.{PREVIEW_DOMAIN}`.
 * The Worker sends them here before any other routing or sign-in: a preview's
 * token is its own permission, checked by the workspace's Durable Object.
 */
import { parsePreviewLabel } from "../../protocol/previews";
import { enter } from "../door/entrances";
import { previewNotFound } from "./pages";

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
  // Not workspaceStub(): preview visitors are not signed in. The Durable
  // Object answers 404 unless the token is a live grant for this port, and an
  // unknown workspace has no grants.
  const stub = env.Workspace.getByName(preview.workspaceId);
  return stub.fetch(enter(request, { kind: "preview", port: preview.port, token: preview.token }));
}
