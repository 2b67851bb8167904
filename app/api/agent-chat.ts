import type {
  AgentChatView,
  AgentFileChange,
  AutoApproveRequest,
  DecideApprovalRequest,
  SendChatMessageRequest,
} from "../../protocol/agent-chat";
import { apiJson, jsonBody, workspacePath } from "./http";

/** The browser side of `/api/workspaces/{id}/agent-chat...` (worker/agents/agent-chat-routes.ts). */
export class AgentChatApi {
  constructor(readonly workspaceId: string) {}

  view(): Promise<AgentChatView> {
    return apiJson(workspacePath(this.workspaceId, "/agent-chat"));
  }

  /** The conversation now, then each change, as `view` events. */
  eventsUrl(): string {
    return workspacePath(this.workspaceId, "/agent-chat/events");
  }

  /** Answers when the turn ends: the agent answered, or waits for an approval. */
  send(text: string): Promise<AgentChatView> {
    return apiJson(
      workspacePath(this.workspaceId, "/agent-chat/messages"),
      jsonBody("POST", { text } satisfies SendChatMessageRequest),
    );
  }

  /** `input`: approve with these arguments changed (the person's edit). */
  decide(approvalId: string, approved: boolean, input?: Record<string, unknown>): Promise<AgentChatView> {
    return apiJson(
      workspacePath(this.workspaceId, `/agent-chat/approvals/${encodeURIComponent(approvalId)}`),
      jsonBody("POST", { approved, ...(input ? { input } : {}) } satisfies DecideApprovalRequest),
    );
  }

  /** A file as it was before the agent's call `toolCallId` changed it (for the editor's diff). */
  change(toolCallId: string): Promise<AgentFileChange> {
    return apiJson(workspacePath(this.workspaceId, `/agent-chat/changes/${encodeURIComponent(toolCallId)}`));
  }

  stop(): Promise<AgentChatView> {
    return apiJson(workspacePath(this.workspaceId, "/agent-chat/stop"), { method: "POST", idempotent: true });
  }

  setAutoApprove(on: boolean): Promise<AgentChatView> {
    return apiJson(workspacePath(this.workspaceId, "/agent-chat/auto-approve"), {
      ...jsonBody("PUT", { on } satisfies AutoApproveRequest),
      idempotent: true,
    });
  }

  clear(): Promise<AgentChatView> {
    return apiJson(workspacePath(this.workspaceId, "/agent-chat"), { method: "DELETE", idempotent: true });
  }
}
