/**
 * The agent panel: one person's conversation with the workspace's agent
 * (`/api/workspaces/{id}/agent-chat...`, an editor's). The page shows an
 * `AgentChatView`; every change to it also arrives on the events stream.
 */

/** What the panel shows, in order. */
export type ChatEntry =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string }
  | {
      kind: "tool";
      toolCallId: string;
      tool: string;
      /** The tool's arguments as the model gave them (the command, the path and content, the edit). */
      input: unknown;
      /**
       * pending: waits for the person (approvalId says which approval);
       * rejected: the person said no, it never ran; done: it ran (output is what it answered);
       * failed: it could not run (output says why).
       */
      status: "pending" | "rejected" | "done" | "failed";
      approvalId?: string;
      output?: string;
    }
  /** A turn that ended without an answer: stopped, or the model failed (the message says what to do). */
  | { kind: "notice"; text: string };

export interface AgentChatView {
  /** The model in use, or what the deployer must set for there to be one. */
  model: { configured: true; label: string } | { configured: false; problem: string };
  entries: ChatEntry[];
  /**
   * The agent's text as it arrives, while a turn runs ("" otherwise): shown
   * after the entries until the step ends and it becomes one of them. The
   * events stream also sends it alone (`event: draft`, `{draft}`) as it grows.
   */
  draft: string;
  /** Writes and commands run without asking, in this conversation. */
  autoApprove: boolean;
  /** A turn runs now (Stop ends it). */
  running: boolean;
}

/**
 * `GET .../agent-chat/changes/{toolCallId}`: a file as it was before the
 * agent wrote or edited it (`created`: it did not exist, `before` is ""),
 * so the editor can show the change as a diff.
 */
export interface AgentFileChange {
  toolCallId: string;
  /** Relative to /workspace, as the files API names it. */
  path: string;
  before: string;
  created: boolean;
}

/** The agent tools whose `path` names a file they change: the panel opens it, as a diff to review. */
export const FILE_WRITING_TOOLS: ReadonlySet<string> = new Set(["write_file", "edit_file"]);

/**
 * A file longer than this (in characters) before an agent changed it gets no
 * diff: it opens as it is. The Workspace stores each "before" as one value,
 * which may be 2 MiB, and a string takes up to two bytes a character.
 */
export const MAX_BEFORE_CHARS = 900_000;

/** `POST .../agent-chat/messages` */
export interface SendChatMessageRequest {
  text: string;
}

/** `POST .../agent-chat/approvals/{approvalId}` */
export interface DecideApprovalRequest {
  approved: boolean;
  /** Approve with these arguments changed (such as `{command}` for run_command); checked against the tool's schema. */
  input?: Record<string, unknown>;
}

/** `PUT .../agent-chat/auto-approve` */
export interface AutoApproveRequest {
  on: boolean;
}

/** A message to the agent is at most this long. */
export const MAX_CHAT_MESSAGE_LENGTH = 20_000;
