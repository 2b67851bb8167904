/**
 * Agents in a workspace: agent tokens for its MCP endpoint
 * (`/mcp/workspaces/{id}`, `Authorization: Bearer TOKEN`) and the log of
 * what agents did there.
 *
 * A token names its workspace, `cide_{workspace id}_{64 hex digits}`, so the
 * Worker can send it to that workspace, which alone can tell whether it is
 * valid (it keeps only a SHA-256 hash of each).
 */
import { WORKSPACE_ID_PATTERN } from "./ids";

/** `read`: files, search, git status and diffs, terminal output, previews. `write` adds changing files, commands, terminal input. */
export type AgentScope = "read" | "write";
export const AGENT_SCOPES: readonly AgentScope[] = ["read", "write"];

/** Tokens live from 5 minutes to 90 days. */
export const AGENT_TOKEN_TTL_MIN_SECONDS = 300;
export const AGENT_TOKEN_TTL_MAX_SECONDS = 90 * 24 * 3600;
/** Names are 1-64 letters, digits, spaces, `.`, `_`, `-`. */
export const AGENT_TOKEN_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;
/** A workspace holds at most this many live tokens. */
export const MAX_AGENT_TOKENS = 20;

const TOKEN_PATTERN = new RegExp(`^cide_(${WORKSPACE_ID_PATTERN.source.slice(1, -1)})_([0-9a-f]{64})$`);

/** The workspace a token claims to be for, or undefined when it is not shaped like a token. */
export function agentTokenWorkspace(token: string): string | undefined {
  return TOKEN_PATTERN.exec(token)?.[1];
}

/** `POST /api/workspaces/{id}/agent-tokens` */
export interface CreateAgentTokenRequest {
  name: string;
  scope: AgentScope;
  ttlSeconds: number;
}

/** A token as listed: never its secret. */
export interface AgentTokenInfo {
  id: string;
  name: string;
  scope: AgentScope;
  /** ISO 8601 */
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
}

/** The answer to a create: the only time `token` is shown. */
export interface CreatedAgentToken {
  id: string;
  name: string;
  scope: AgentScope;
  token: string;
  /** The MCP endpoint's absolute URL. */
  mcpUrl: string;
  expiresAt: string;
}

/** `GET /api/workspaces/{id}/agent-tokens` */
export interface AgentTokenList {
  tokens: AgentTokenInfo[];
  /** The MCP endpoint of this workspace. */
  mcpUrl: string;
}

/** The MCP endpoint's path for a workspace. */
export function mcpPath(workspaceId: string): string {
  return `/mcp/workspaces/${workspaceId}`;
}

/** One tool call by an agent. */
export interface AgentActivityEntry {
  id: number;
  /** Epoch milliseconds. */
  at: number;
  tokenId: string;
  tokenName: string;
  tool: string;
  /** The arguments, summarised (long text replaced by its length). */
  summary: string;
  /** `refused`: the token's scope does not cover the tool. */
  outcome: "ok" | "error" | "refused";
  /** Why it failed or was refused (short). */
  message?: string;
  ms: number;
}

/** `GET /api/workspaces/{id}/agent-activity?after=ID` */
export interface AgentActivity {
  entries: AgentActivityEntry[];
}
