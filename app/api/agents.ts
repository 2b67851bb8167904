import type {
  AgentActivity,
  AgentScope,
  AgentTokenList,
  CreateAgentTokenRequest,
  CreatedAgentToken,
} from "../../protocol/agents";
import { apiJson, jsonBody, workspacePath } from "./http";

/** The browser side of `/api/workspaces/{id}/agent-tokens` and `/agent-activity` (worker/agents/agent-routes.ts). */
export class AgentsApi {
  constructor(readonly workspaceId: string) {}

  list(): Promise<AgentTokenList> {
    return apiJson(workspacePath(this.workspaceId, "/agent-tokens"));
  }

  /** The answer carries the token's secret: the only time it is shown. */
  create(name: string, scope: AgentScope, ttlSeconds: number): Promise<CreatedAgentToken> {
    return apiJson(
      workspacePath(this.workspaceId, "/agent-tokens"),
      jsonBody("POST", { name, scope, ttlSeconds } satisfies CreateAgentTokenRequest),
    );
  }

  revoke(tokenId: string): Promise<void> {
    return apiJson(workspacePath(this.workspaceId, `/agent-tokens/${encodeURIComponent(tokenId)}`), {
      method: "DELETE",
    });
  }

  /** Calls newer than `after`. */
  activity(after = 0): Promise<AgentActivity> {
    return apiJson(workspacePath(this.workspaceId, `/agent-activity?after=${after}`));
  }
}
