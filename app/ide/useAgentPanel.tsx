import { lazy, type ReactNode, Suspense, useEffect, useState } from "react";
import { AGENT_CHAT_COMMAND } from "../agent-chat/agent-chat-command";
import { AgentReview } from "../agent-chat/agent-review";
import type { WorkspaceApi } from "../api/workspace";
import { useRegisterCommands } from "../commands/useCommands";
import type { EditorModel } from "../editor/editor-model";

/** Loaded when first opened: with its Markdown renderer it is a large part of the app that most page loads never show. */
const AgentChatPanel = lazy(() => import("../agent-chat/AgentChatPanel").then((m) => ({ default: m.AgentChatPanel })));

/**
 * The agent panel, an editor's (a viewer's page has none; the server refuses
 * them anyway), opened and closed by its command. The agent's file changes
 * open as diffs, which outlive the panel (closing it leaves a review open).
 */
export function useAgentPanel(api: WorkspaceApi, editor: EditorModel, readOnly: boolean): ReactNode {
  const [open, setOpen] = useState(false);
  const [review, setReview] = useState<AgentReview>();
  useEffect(() => {
    if (readOnly) return;
    const created = new AgentReview(editor, api.agentChat);
    setReview(created);
    return () => created.dispose();
  }, [editor, api.agentChat, readOnly]);
  useRegisterCommands(
    () =>
      readOnly
        ? []
        : [
            {
              id: AGENT_CHAT_COMMAND,
              title: "Agent: chat with an agent that works in this workspace",
              run: () => setOpen((shown) => !shown),
            },
          ],
    [readOnly],
  );
  if (!open || readOnly) return null;
  return (
    <Suspense fallback={null}>
      <AgentChatPanel
        api={api.agentChat}
        onClose={() => setOpen(false)}
        onFileChanged={(path, toolCallId) =>
          void (review ? review.show(path, toolCallId) : editor.open(path)).catch(() => undefined)
        }
      />
    </Suspense>
  );
}
