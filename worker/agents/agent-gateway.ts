import { ErrorCode } from "../../protocol/errors";
import { AppError, describe } from "../errors";
import { drainBody, errorResponse } from "../http";
import { ActivityLog } from "./activity-log";
import { type AgentCaller, AgentTokens, refused, type TokenStorage } from "./agent-tokens";
import { type ActivityRecord, serveMcp } from "./mcp-server";
import type { ToolContext } from "./tools";

export interface GatewayDeps {
  storage: TokenStorage;
  workspaceId: () => string;
  /** The workspace's features for a call; `origin` is the IDE's (preview URLs use its scheme). */
  tools: (origin: URL) => Omit<ToolContext, "signal">;
  /** An agent's request is use of the workspace (it keeps it awake like a person's). */
  touch: () => void;
}

/**
 * The Workspace Durable Object's door for agents: checks the bearer token
 * (hash, expiry, revocation) on every request, serves MCP for it, logs
 * every tool call, and ends a token's calls in flight the moment it is
 * revoked or expires (their HTTP requests answer 401 at once).
 */
export class AgentGateway {
  readonly tokens: AgentTokens;
  readonly activity: ActivityLog;
  /** Calls in flight by token id, so a revocation ends them. */
  private readonly inFlight = new Map<string, Set<AbortController>>();

  constructor(private readonly deps: GatewayDeps) {
    this.tokens = new AgentTokens(deps.storage, deps.workspaceId);
    this.activity = new ActivityLog(deps.storage);
  }

  async serve(request: Request): Promise<Response> {
    let caller: AgentCaller;
    try {
      caller = await this.tokens.verify(bearerToken(request));
    } catch (error) {
      // Read what it sent (a small body): one left unread can break the next request on its connection.
      await drainBody(request);
      if (error instanceof AppError) return refusal(error);
      throw error;
    }
    this.deps.touch();
    if (request.method === "GET") {
      // Stateless: no server-to-client stream to open (the spec's answer is 405).
      return new Response(null, { status: 405, headers: { Allow: "POST, DELETE" } });
    }
    const controller = new AbortController();
    const calls = this.inFlight.get(caller.tokenId) ?? new Set();
    this.inFlight.set(caller.tokenId, calls.add(controller));
    const expiry = setTimeout(
      () => controller.abort(refused("This agent token expired while the call ran.")),
      Math.max(0, caller.expiresAt - Date.now()),
    );
    const ended = new Promise<Response>((resolve) => {
      controller.signal.addEventListener("abort", () => resolve(refusal(reasonOf(controller.signal))), { once: true });
    });
    try {
      const context = { ...this.deps.tools(new URL(request.url)), signal: controller.signal };
      const served = serveMcp(request, caller, context, (entry) => this.record(entry)).catch((error: unknown) => {
        if (error instanceof AppError) return errorResponse(error);
        throw error;
      });
      return await Promise.race([served, ended]);
    } finally {
      clearTimeout(expiry);
      calls.delete(controller);
      if (calls.size === 0) this.inFlight.delete(caller.tokenId);
    }
  }

  /** Revokes a token and ends its calls in flight; false when there was no such live token. */
  async revoke(tokenId: string): Promise<boolean> {
    const revoked = await this.tokens.revoke(tokenId);
    this.end(tokenId, "This agent token was revoked.");
    return revoked;
  }

  /** Ends every call in flight (the workspace is being deleted). */
  endAll(): void {
    for (const tokenId of [...this.inFlight.keys()]) this.end(tokenId, "The workspace was deleted.");
  }

  private end(tokenId: string, message: string): void {
    for (const controller of this.inFlight.get(tokenId) ?? []) controller.abort(refused(message));
    this.inFlight.delete(tokenId);
  }

  /** Logs a tool call (the MCP endpoint's, and the agent panel's); a failed write is logged, not thrown. */
  record(entry: ActivityRecord): void {
    this.activity.record(entry).catch((error) => console.error(`agent activity log: ${describe(error)}`));
  }
}

/** `Authorization: Bearer TOKEN`, or AGENT_TOKEN_REFUSED. Cookies are never read here. */
function bearerToken(request: Request): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("Authorization") ?? "");
  if (!match?.[1])
    throw refused("Send the agent token as Authorization: Bearer TOKEN (create one in the IDE: Agents).");
  return match[1];
}

function reasonOf(signal: AbortSignal): AppError {
  return signal.reason instanceof AppError ? signal.reason : refused("The call was ended.");
}

/** An agent's request to a workspace nobody created (or one deleted): refused as an unknown token is, its body read. */
export async function refuseUnknownWorkspace(request: Request): Promise<Response> {
  await drainBody(request);
  return refusal(refused("This agent token is not valid for this workspace."));
}

/** 401 with the `WWW-Authenticate` challenge an OAuth-style bearer client expects. */
export function refusal(error: AppError): Response {
  const response = errorResponse(error);
  if (error.code === ErrorCode.AGENT_TOKEN_REFUSED) {
    response.headers.set("WWW-Authenticate", `Bearer realm="cloud-ide", error="invalid_token"`);
  }
  return response;
}
