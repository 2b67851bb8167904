/**
 * The Outbound entrypoint: every HTTP and HTTPS request a workspace's
 * container makes (outside the open mode) arrives here, already decrypted.
 * It asks the workspace's Durable Object for the policy in force now, so a
 * change applies to the next request, then forwards the request with the
 * secrets for its host, or answers 403 naming the host and how to allow it.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { describe } from "../errors";
import type { EgressVerdict } from "./workspace-network";

export interface OutboundProps {
  /** The workspace's Durable Object id (`ctx.id.toString()`). */
  workspace: string;
}

/** Marks the IDE's own refusals, for scripts that want to tell them from a server's 403. */
export const BLOCKED_HEADER = "X-Cloud-IDE-Egress";

export class Outbound extends WorkerEntrypoint<Env, OutboundProps> {
  override async fetch(request: Request): Promise<Response> {
    const workspace = this.env.Workspace.get(this.env.Workspace.idFromString(this.ctx.props.workspace));
    const verdict = (await workspace.egressVerdict({ method: request.method, url: request.url })) as EgressVerdict;
    if (!verdict.allow) return blocked(request, verdict.message);
    const headers = new Headers(request.headers);
    // The URL names the destination (the TLS server name, or the Host of plain HTTP); a Host header must not.
    headers.delete("Host");
    for (const { name, value } of verdict.headers) headers.set(name, value);
    // Redirects go back to the container, whose next request is checked (and
    // gets its own host's secrets) like any other: the Worker never follows
    // one to a host the policy does not allow, or carries a secret there.
    const forward = new Request(request.url, {
      method: request.method,
      headers,
      body: request.body,
      redirect: "manual",
    });
    const began = Date.now();
    try {
      const response = await this.forward(forward);
      if (verdict.id > 0) {
        this.ctx.waitUntil(workspace.egressSettled(verdict.id, { status: response.status, ms: Date.now() - began }));
      }
      return response;
    } catch (error) {
      const reason = describe(error);
      if (verdict.id > 0) {
        this.ctx.waitUntil(
          workspace.egressSettled(verdict.id, { status: null, error: reason, ms: Date.now() - began }),
        );
      }
      return new Response(`The IDE could not reach ${new URL(request.url).host}: ${reason}\n`, {
        status: 502,
        headers: { "Content-Type": "text/plain; charset=utf-8", [BLOCKED_HEADER]: "unreachable" },
      });
    }
  }

  /** Sends an allowed request on its way (the test Worker answers its own test hosts here). */
  protected forward(request: Request): Promise<Response> {
    return fetch(request);
  }
}

/**
 * The answer to a refused request: 403, with the reason as `{"error": …}`
 * for clients that ask for JSON (npm prints that field) and as text otherwise.
 */
export function blocked(request: Request, message: string): Response {
  const headers = { [BLOCKED_HEADER]: "blocked", "Cache-Control": "no-store" };
  if (/json/i.test(request.headers.get("Accept") ?? "")) {
    return Response.json({ error: message, code: "BLOCKED_BY_NETWORK_POLICY" }, { status: 403, headers });
  }
  return new Response(`${message}\n`, {
    status: 403,
    headers: { ...headers, "Content-Type": "text/plain; charset=utf-8" },
  });
}
