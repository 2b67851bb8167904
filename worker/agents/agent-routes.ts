import { z } from "zod";
import {
  AGENT_SCOPES,
  AGENT_TOKEN_NAME_PATTERN,
  AGENT_TOKEN_TTL_MAX_SECONDS,
  AGENT_TOKEN_TTL_MIN_SECONDS,
  type AgentScope,
  type AgentTokenList,
  type CreateAgentTokenRequest,
  type CreatedAgentToken,
  mcpPath,
} from "../../protocol/agents";
import { ErrorCode } from "../../protocol/errors";
import type { Body } from "../door/route";
import { afterEntry, none, refusal } from "../door/schema";
import { notFound } from "../errors";
import { defineRoute, type WorkspaceRoute } from "../workspace-parts";

/**
 * `/api/workspaces/{id}/agent-tokens...` and `/agent-activity`: the owner's
 * agent tokens for the MCP endpoint (worker/routes/mcp.ts) and the log of
 * what agents did. Session routes: an agent token never reaches them.
 */
const createToken = z.object({
  name: z
    .string()
    .optional()
    .transform((name) => (name ?? "").trim())
    .refine(
      (name) => AGENT_TOKEN_NAME_PATTERN.test(name),
      refusal(
        ErrorCode.INVALID_AGENT_TOKEN,
        "name must be 1-64 letters, digits, spaces, '.', '_' or '-', starting with a letter or digit (say which agent it is for, such as claude-code).",
      ),
    ),
  scope: z
    .unknown()
    .optional()
    .refine(
      (scope) => AGENT_SCOPES.includes(scope as AgentScope),
      refusal(
        ErrorCode.INVALID_AGENT_TOKEN,
        'scope must be "read" (files, search, git, terminal output, previews) or "write" (also changing files, commands, terminal input).',
      ),
    )
    .transform((scope) => scope as AgentScope),
  ttlSeconds: z
    .unknown()
    .optional()
    .refine(
      (ttl) =>
        typeof ttl === "number" &&
        Number.isInteger(ttl) &&
        ttl >= AGENT_TOKEN_TTL_MIN_SECONDS &&
        ttl <= AGENT_TOKEN_TTL_MAX_SECONDS,
      refusal(
        ErrorCode.INVALID_TTL,
        `ttlSeconds must be a whole number of seconds from ${AGENT_TOKEN_TTL_MIN_SECONDS} (5 minutes) to ${AGENT_TOKEN_TTL_MAX_SECONDS} (90 days).`,
      ),
    )
    .transform((ttl) => ttl as number),
}) satisfies Body<CreateAgentTokenRequest>;

/** The MCP endpoint on the IDE's own host. */
function mcpUrl(url: URL, workspaceId: string): string {
  return new URL(mcpPath(workspaceId), url).toString();
}

export const AGENT_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "POST",
    path: "/agent-tokens",
    role: "owner",
    wake: "never",
    doc: "`{name, scope, ttlSeconds}`: an agent token for the MCP endpoint: 201 CreatedAgentToken `{id, name, scope, token, mcpUrl, expiresAt}`, the only time `token` is shown. `scope` is `read` or `write`, `ttlSeconds` 300 to 7,776,000 (90 days); 400 INVALID_AGENT_TOKEN or INVALID_TTL; at most 20 live tokens (409 TOO_MANY_AGENT_TOKENS).",
    input: { body: { json: createToken } },
    handle: async ({ body, url, workspace }) => {
      const token = await workspace.agents.tokens.create(body.name, body.scope, body.ttlSeconds);
      const created: CreatedAgentToken = {
        id: token.id,
        name: token.name,
        scope: token.scope,
        token: token.token,
        mcpUrl: mcpUrl(url, workspace.id),
        expiresAt: token.expiresAt,
      };
      return Response.json(created, { status: 201, headers: { "Cache-Control": "no-store" } });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/agent-tokens",
    role: "owner",
    wake: "never",
    doc: "AgentTokenList `{tokens: [{id, name, scope, createdAt, expiresAt, lastUsedAt}], mcpUrl}`: never a secret (expired tokens are dropped).",
    input: { query: none },
    handle: async ({ url, workspace }) => {
      const list: AgentTokenList = { tokens: await workspace.agents.tokens.list(), mcpUrl: mcpUrl(url, workspace.id) };
      return Response.json(list);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/agent-tokens/:tokenId",
    role: "owner",
    wake: "never",
    doc: "Revokes the token at once: its calls in flight end (their requests answer 401). 204, or 404 when there is no such live token.",
    input: { params: z.object({ tokenId: z.string() }) },
    handle: async ({ params, workspace }) => {
      if (!/^[a-f0-9]{16}$/.test(params.tokenId) || !(await workspace.agents.revoke(params.tokenId))) {
        throw notFound("No live agent token with this id: it may have expired or been revoked already.");
      }
      return new Response(null, { status: 204 });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/agent-activity",
    role: "owner",
    wake: "never",
    doc: "AgentActivity `{entries: [{id, at, tokenId, tokenName, tool, summary, outcome, message?, ms}]}`: the agents' calls after `after` (the last 500 are kept; `outcome` is ok, error or refused). Never wakes, not counted as use.",
    input: {
      query: z.object({
        after: afterEntry,
      }),
    },
    handle: async ({ query, workspace }) =>
      Response.json({ entries: await workspace.agents.activity.since(query.after) }),
  }),
];
