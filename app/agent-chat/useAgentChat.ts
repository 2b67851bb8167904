import { useCallback, useEffect, useRef, useState } from "react";
import { type AgentChatView, type ChatEntry, FILE_WRITING_TOOLS } from "../../protocol/agent-chat";
import type { AgentChatApi } from "../api/agent-chat";
import { errorMessage } from "../api/http";

export interface AgentChatState {
  view: AgentChatView | undefined;
  /** The agent's text as it arrives (the view's draft, then each draft event). */
  draft: string;
  /** The last action's failure, as a person should read it. */
  error: string | undefined;
  /** An action of this page is in flight (a message, a decision). */
  waiting: boolean;
  send(text: string): Promise<boolean>;
  decide(approvalId: string, approved: boolean, input?: Record<string, unknown>): Promise<void>;
  stop(): Promise<void>;
  setAutoApprove(on: boolean): Promise<void>;
  clear(): Promise<void>;
}

/**
 * The person's conversation with the agent: the server's view of it, kept
 * current by its event stream (a turn's progress, another tab's actions,
 * the conversation after a reload), and the actions on it. Files the agent
 * wrote or edited are handed to `onFileChanged` once, as they change, with
 * the call that changed them.
 */
export function useAgentChat(
  api: AgentChatApi,
  onFileChanged: (path: string, toolCallId: string) => void,
): AgentChatState {
  const [view, setView] = useState<AgentChatView>();
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<string>();
  const [waiting, setWaiting] = useState(false);
  const seen = useRef<Set<string> | undefined>(undefined);
  const fileChanged = useRef(onFileChanged);
  fileChanged.current = onFileChanged;

  const show = useCallback((next: AgentChatView) => {
    const done = next.entries.filter(isWrittenFile);
    if (seen.current) {
      for (const entry of done) {
        if (seen.current.has(entry.toolCallId)) continue;
        const path = (entry.input as { path?: unknown }).path;
        if (typeof path === "string") fileChanged.current(path, entry.toolCallId);
      }
    }
    // The first view only says what was done before: nothing opens for it.
    seen.current = new Set([...(seen.current ?? []), ...done.map((entry) => entry.toolCallId)]);
    setView(next);
    setDraft(next.draft);
  }, []);

  useEffect(() => {
    const source = new EventSource(api.eventsUrl());
    source.addEventListener("view", (event) => show(JSON.parse((event as MessageEvent<string>).data)));
    source.addEventListener("draft", (event) =>
      setDraft((JSON.parse((event as MessageEvent<string>).data) as { draft: string }).draft),
    );
    return () => source.close();
  }, [api, show]);

  const act = useCallback(
    async (run: () => Promise<AgentChatView>): Promise<boolean> => {
      setWaiting(true);
      setError(undefined);
      try {
        show(await run());
        return true;
      } catch (failure) {
        setError(errorMessage(failure));
        // What the server kept (the message, a notice) is shown all the same.
        await api.view().then(show, () => undefined);
        return false;
      } finally {
        setWaiting(false);
      }
    },
    [api, show],
  );

  return {
    view,
    draft,
    error,
    waiting,
    send: (text) => act(() => api.send(text)),
    decide: async (approvalId, approved, input) => void (await act(() => api.decide(approvalId, approved, input))),
    // Stop answers at once, while the message it stops is still waited for.
    stop: async () => {
      await api.stop().then(show, (failure: unknown) => setError(errorMessage(failure)));
    },
    setAutoApprove: async (on) => void (await act(() => api.setAutoApprove(on))),
    clear: async () => void (await act(() => api.clear())),
  };
}

/** A write or edit of a file that ran: the editor opens the file once, and the panel offers it again. */
export function isWrittenFile(entry: ChatEntry): entry is Extract<ChatEntry, { kind: "tool" }> {
  return entry.kind === "tool" && entry.status === "done" && FILE_WRITING_TOOLS.has(entry.tool);
}
