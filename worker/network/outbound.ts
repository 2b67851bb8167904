/**
 * The Outbound entrypoint: every HTTP and HTTPS request a workspace's
 * container makes (outside the open mode) arrives here, already decrypted.
 * It applies the workspace's rules in force now (see EgressRules), then
 * forwards the request with the secrets for its host, or answers 403 naming
 * the host and how to allow it; each request goes to the workspace's log.
 * Where the host resolves is checked as the request is sent
 * (outbound-fetch.ts), and the answers a container gets are the IDE's own
 * words, never an error's internals.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { ERROR_STATUS, ErrorCode } from "../../protocol/errors";
import type { EgressLogEntry } from "../../protocol/network";
import { describe } from "../errors";
import { decide, type EgressRules, requestHost } from "./egress-rules";
import {
  answerWithin,
  localOutbound,
  OutboundRefused,
  OutboundUnreachable,
  sendOutbound,
  type UnreachableReason,
  withoutTrustedHeaders,
} from "./outbound-fetch";

export interface OutboundProps {
  /** The workspace's Durable Object id (`ctx.id.toString()`). */
  workspace: string;
  /** The version of its rules when these intercepts were registered. */
  version: number;
}

/**
 * How long an allowed request may wait for its answer to begin (the body may
 * stream for longer): a host that never answers gets the container a 504
 * that says so, never a connection that waits forever (issue 45).
 */
export const ANSWER_DEADLINE_MS = 60_000;

/** Marks the IDE's own answers, for scripts that want to tell them from a server's. */
export const BLOCKED_HEADER = "X-Cloud-IDE-Egress";

/**
 * Rules by workspace, in this isolate: the intercepts are registered again
 * with a new version after every change, so rules of the version a request's
 * props name are current, and the common request asks the Durable Object
 * nothing. A request whose props name another version (an older
 * registration) asks it.
 */
const cache = new Map<string, EgressRules>();
const CACHE_SIZE = 1000;

export class Outbound extends WorkerEntrypoint<Env, OutboundProps> {
  override async fetch(request: Request): Promise<Response> {
    // Nothing thrown here may reach the container (workerd would answer with
    // its own error text and stack): a malformed request is a 400 of ours.
    if (!URL.canParse(request.url)) {
      return refused(400, "Refused by the IDE: the request names no valid host (a malformed or repeated Host header).");
    }
    try {
      return await this.decideAndForward(request);
    } catch (error) {
      console.error(`outbound: ${request.method} ${new URL(request.url).host} failed:`, error);
      return refused(502, "The IDE could not handle this request; it was not sent.");
    }
  }

  private async decideAndForward(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const rules = await this.rules();
    const decision = decide(rules, url);
    const entry: Omit<EgressLogEntry, "id" | "verdict" | "status"> = {
      at: new Date().toISOString(),
      method: request.method,
      scheme: url.protocol === "https:" ? "https" : "http",
      host: requestHost(url),
      path: url.pathname.slice(0, 200),
      secrets: decision.allow ? decision.secrets : [],
    };
    if (!decision.allow) {
      this.record({ ...entry, verdict: "blocked", status: ERROR_STATUS.BLOCKED_BY_NETWORK_POLICY });
      return blocked(request, decision.message);
    }
    // Nothing the container sends may pass for what Cloudflare or the IDE sets (a client address, a caller).
    const headers = withoutTrustedHeaders(request.headers);
    // The URL names the destination (the TLS server name, or the Host of plain HTTP); a Host header must not.
    headers.delete("Host");
    for (const { name, value } of decision.headers) headers.set(name, value);
    // Redirects go back to the container, whose next request is checked (and
    // gets its own host's secrets) like any other: the Worker never follows
    // one to a host the policy does not allow, or carries a secret there.
    const abandon = new AbortController();
    const forward = new Request(url, {
      method: request.method,
      headers,
      body: request.body,
      redirect: "manual",
      signal: abandon.signal,
    });
    const deadlineMs = this.answerDeadlineMs(url);
    const began = Date.now();
    try {
      const response = await answerWithin(this.forward(forward), deadlineMs, abandon);
      if (decision.logged) {
        this.record({ ...entry, verdict: "allowed", status: response.status, ms: Date.now() - began });
      }
      return response;
    } catch (error) {
      if (error instanceof OutboundRefused) {
        const message = `Blocked by the IDE: ${entry.host} resolves to ${error.address}, an address of this machine or of a private network; workspaces cannot reach it.`;
        this.record({ ...entry, verdict: "blocked", status: ERROR_STATUS.BLOCKED_BY_NETWORK_POLICY });
        return blocked(request, message);
      }
      // The details go to the log; the container gets the IDE's own words.
      const reason = error instanceof OutboundUnreachable ? error.reason : "other";
      console.warn(`outbound: ${request.method} ${url.host} failed: ${describe(error)}`);
      const why =
        reason === "timeout"
          ? `it did not answer within ${Math.round(deadlineMs / 1000)} seconds`
          : UNREACHABLE[reason];
      if (decision.logged) {
        this.record({ ...entry, verdict: "allowed", status: null, error: why, ms: Date.now() - began });
      }
      return new Response(`The IDE could not reach ${url.host}: ${why}.\n`, {
        status: reason === "timeout" ? 504 : 502,
        headers: { "Content-Type": "text/plain; charset=utf-8", [BLOCKED_HEADER]: "unreachable" },
      });
    }
  }

  /** Sends an allowed request on its way (the test Worker answers its own test hosts here). */
  protected forward(request: Request): Promise<Response> {
    return sendOutbound(request, localOutbound(this.env), import.meta.env.DEV);
  }

  /** {@link ANSWER_DEADLINE_MS}; the test Worker shortens it for its silent test host. */
  protected answerDeadlineMs(_url: URL): number {
    return ANSWER_DEADLINE_MS;
  }

  private workspace() {
    return this.env.Workspace.get(this.env.Workspace.idFromString(this.ctx.props.workspace));
  }

  private async rules(): Promise<EgressRules> {
    const { workspace, version } = this.ctx.props;
    const cached = cache.get(workspace);
    if (cached?.version === version) return cached;
    const fresh = (await this.workspace().egressRules()) as EgressRules;
    if (fresh.version === version) {
      cache.delete(workspace);
      cache.set(workspace, fresh);
      if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    }
    return fresh;
  }

  /** To the workspace's log, after the answer is on its way. */
  private record(entry: Omit<EgressLogEntry, "id">): void {
    this.ctx.waitUntil(this.workspace().egressRecord(entry));
  }
}

/** Why a request got no answer, in the IDE's own words (the details are logged). */
const UNREACHABLE: Record<UnreachableReason, string> = {
  dns: "its name does not resolve",
  connection: "the connection failed",
  timeout: "it did not answer in time",
  tls: "its TLS certificate could not be verified",
  other: "the request could not be sent",
};

/** The IDE's own answer to a request it could not take (text, never internals). */
function refused(status: number, message: string): Response {
  return new Response(`${message}\n`, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", [BLOCKED_HEADER]: "refused", "Cache-Control": "no-store" },
  });
}

/**
 * The answer to a refused request: 403, with the reason as `{"error": …}`
 * for clients that ask for JSON (npm prints that field) and as text otherwise.
 */
export function blocked(request: Request, message: string): Response {
  const headers = { [BLOCKED_HEADER]: "blocked", "Cache-Control": "no-store" };
  const status = ERROR_STATUS[ErrorCode.BLOCKED_BY_NETWORK_POLICY];
  if (/json/i.test(request.headers.get("Accept") ?? "")) {
    return Response.json({ error: message, code: ErrorCode.BLOCKED_BY_NETWORK_POLICY }, { status, headers });
  }
  return new Response(`${message}\n`, {
    status,
    headers: { ...headers, "Content-Type": "text/plain; charset=utf-8" },
  });
}
