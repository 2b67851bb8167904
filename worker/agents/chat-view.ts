/**
 * The conversation as the panel shows it: the stored model messages (AI SDK
 * `ModelMessage`s) turned into entries: the person's messages, the agent's
 * text, each tool call with its arguments, whether it waits, was rejected or
 * ran, and what it answered.
 */
import type { ModelMessage } from "ai";
import type { AgentChatView, ChatEntry } from "../../protocol/agent-chat";
import type { Saved } from "./agent-chat";

type ToolEntry = Extract<ChatEntry, { kind: "tool" }>;

export function chatEntries(saved: Saved): ChatEntry[] {
  const entries: ChatEntry[] = [];
  const calls = new Map<string, ToolEntry>();
  const approvals = new Map<string, ToolEntry>();
  const notices = saved.notices ?? [];
  const noticesAfter = (count: number) => {
    for (const notice of notices) if (notice.after === count) entries.push({ kind: "notice", text: notice.text });
  };
  noticesAfter(0);
  saved.messages.forEach((message, index) => {
    addMessage(message, entries, calls, approvals);
    noticesAfter(index + 1);
  });
  for (const pending of saved.pending) {
    const entry = approvals.get(pending.approvalId);
    if (entry && entry.status === "pending") {
      entry.status = "pending";
      entry.approvalId = pending.approvalId;
    }
  }
  return entries;
}

function addMessage(
  message: ModelMessage,
  entries: ChatEntry[],
  calls: Map<string, ToolEntry>,
  approvals: Map<string, ToolEntry>,
): void {
  if (message.role === "system") return;
  if (typeof message.content === "string") {
    if (message.role === "user" || message.role === "assistant") {
      if (message.content.trim()) entries.push({ kind: message.role, text: message.content });
    }
    return;
  }
  for (const part of message.content) {
    switch (part.type) {
      case "text":
        if (part.text.trim()) entries.push({ kind: message.role === "user" ? "user" : "assistant", text: part.text });
        break;
      case "tool-call": {
        // Answered below by a result or a rejection; until then it waits (or runs).
        const entry: ToolEntry = {
          kind: "tool",
          toolCallId: part.toolCallId,
          tool: part.toolName,
          input: part.input,
          status: "pending",
        };
        calls.set(part.toolCallId, entry);
        entries.push(entry);
        break;
      }
      case "tool-approval-request": {
        const entry = calls.get(part.toolCallId);
        if (entry) approvals.set(part.approvalId, entry);
        break;
      }
      case "tool-approval-response": {
        const entry = approvals.get(part.approvalId);
        if (entry && !part.approved) entry.status = "rejected";
        break;
      }
      case "tool-result": {
        const entry = calls.get(part.toolCallId);
        if (!entry) break;
        const output = part.output;
        if (output.type === "execution-denied") {
          entry.status = "rejected";
        } else if (output.type === "error-text" || output.type === "error-json") {
          entry.status = "failed";
          entry.output = outputText(output);
        } else {
          entry.status = "done";
          entry.output = outputText(output);
        }
        break;
      }
      default:
        break;
    }
  }
}

function outputText(output: { type: string; value?: unknown }): string {
  if (typeof output.value === "string") return output.value;
  return JSON.stringify(output.value ?? null);
}

/** The whole view: entries, the draft, auto-approve, whether a turn runs, and the model (or what to set). */
export function chatView(
  saved: Saved,
  running: boolean,
  model: { ok: true; label: string } | { ok: false; problem: string },
  draft = "",
): AgentChatView {
  return {
    model: model.ok ? { configured: true, label: model.label } : { configured: false, problem: model.problem },
    entries: chatEntries(saved),
    draft,
    autoApprove: saved.autoApprove,
    running,
  };
}
