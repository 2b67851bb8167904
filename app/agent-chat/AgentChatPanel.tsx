import { type FormEvent, useEffect, useRef, useState } from "react";
import type { ChatEntry } from "../../protocol/agent-chat";
import type { AgentChatApi } from "../api/agent-chat";
import { ChatMarkdown } from "./ChatMarkdown";
import { isWrittenFile, useAgentChat } from "./useAgentChat";
import "./agent-chat.css";

type ToolEntry = Extract<ChatEntry, { kind: "tool" }>;

const TOOL_TITLES: Record<string, string> = {
  run_command: "Run a command",
  write_file: "Write a file",
  edit_file: "Edit a file",
  send_terminal_input: "Type into a terminal",
  read_file: "Read a file",
  list_directory: "List a folder",
  search: "Search",
  git_status: "git status",
  git_diff: "git diff",
  list_terminals: "List terminals",
  read_terminal: "Read a terminal",
  list_previews: "List previews",
};

const STATUS_LABELS: Record<ToolEntry["status"], string> = {
  pending: "waits for you",
  rejected: "rejected: not run",
  done: "done",
  failed: "failed",
};

/** The argument a person may change before approving: the command, the file's content, the replacement. */
const EDITABLE: Record<string, string> = { run_command: "command", write_file: "content", edit_file: "newText" };

/**
 * The agent panel, beside the editor: the person's conversation with the
 * workspace's agent. Writes and commands wait for Approve, Reject or Edit
 * (the command or the change shown), unless auto-approve is on; Stop ends a turn.
 */
export function AgentChatPanel({
  api,
  onClose,
  onFileChanged,
}: {
  api: AgentChatApi;
  onClose: () => void;
  onFileChanged: (path: string, toolCallId: string) => void;
}) {
  const chat = useAgentChat(api, onFileChanged);
  const { view } = chat;
  const [text, setText] = useState("");
  const end = useRef<HTMLDivElement>(null);
  const entries = view?.entries ?? [];
  const pending = entries.some((e) => e.kind === "tool" && e.status === "pending");
  const running = view?.running === true;
  const draft = running ? chat.draft : "";
  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolls to the end when an entry comes, the draft grows, or the turn ends
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: "end" });
  }, [entries.length, draft, running]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const message = text.trim();
    if (!message) return;
    setText("");
    if (!(await chat.send(message))) setText(message);
  };

  return (
    <aside className="agent-chat" data-testid="agent-chat" aria-label="Agent">
      <header>
        <h2>Agent</h2>
        {view?.model.configured && (
          <span className="agent-chat-model" title="The model (set by the deployer)" data-testid="agent-chat-model">
            {view.model.label}
          </span>
        )}
        <button type="button" onClick={onClose} aria-label="Close the agent panel" data-testid="agent-chat-close">
          ✕
        </button>
      </header>
      {view && !view.model.configured && (
        <p className="agent-chat-unconfigured" role="alert" data-testid="agent-chat-unconfigured">
          Not configured: {view.model.problem}
        </p>
      )}
      <div className="agent-chat-options">
        <label title="Writes and commands run without asking, in this conversation">
          <input
            type="checkbox"
            checked={view?.autoApprove === true}
            disabled={!view}
            onChange={(e) => void chat.setAutoApprove(e.target.checked)}
            data-testid="agent-chat-auto-approve"
          />
          Auto-approve
        </label>
        <button
          type="button"
          onClick={() => void chat.clear()}
          disabled={!view || running || entries.length === 0}
          data-testid="agent-chat-clear"
        >
          Clear
        </button>
      </div>
      <div className="agent-chat-entries" data-testid="agent-chat-entries">
        {entries.length === 0 && view?.model.configured && (
          <p className="agent-chat-hint">
            Ask the agent to read, change or run something in this workspace. It asks before it changes a file or runs a
            command; what it reads is data to it, never orders.
          </p>
        )}
        {entries.map((entry, index) => (
          <Entry
            // biome-ignore lint/suspicious/noArrayIndexKey: entries only grow (or all go), so a position names one
            key={index}
            entry={entry}
            busy={chat.waiting || running}
            onDecide={chat.decide}
            onShowChange={onFileChanged}
          />
        ))}
        {draft && (
          <div className="agent-chat-assistant drafting" data-testid="agent-chat-draft">
            <ChatMarkdown text={draft} />
          </div>
        )}
        {running && (
          <p className="agent-chat-working" data-testid="agent-chat-working">
            Working…
          </p>
        )}
        <div ref={end} />
      </div>
      {chat.error && (
        <p className="agent-chat-error" role="alert" data-testid="agent-chat-error">
          {chat.error}
        </p>
      )}
      <form className="agent-chat-form" onSubmit={(e) => void submit(e)}>
        <textarea
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            }
          }}
          placeholder={pending ? "Approve or reject first" : "Ask the agent…"}
          aria-label="Message to the agent"
          rows={2}
          disabled={!view?.model.configured}
          data-testid="agent-chat-input"
        />
        {running ? (
          <button type="button" onClick={() => void chat.stop()} data-testid="agent-chat-stop">
            Stop
          </button>
        ) : (
          <button
            type="submit"
            disabled={!view?.model.configured || chat.waiting || pending || !text.trim()}
            data-testid="agent-chat-send"
          >
            Send
          </button>
        )}
      </form>
    </aside>
  );
}

function Entry({
  entry,
  busy,
  onDecide,
  onShowChange,
}: {
  entry: ChatEntry;
  busy: boolean;
  onDecide: (approvalId: string, approved: boolean, input?: Record<string, unknown>) => Promise<void>;
  onShowChange: (path: string, toolCallId: string) => void;
}) {
  switch (entry.kind) {
    case "user":
      return <p className="agent-chat-user">{entry.text}</p>;
    case "assistant":
      return (
        <div className="agent-chat-assistant" data-testid="agent-chat-assistant">
          <ChatMarkdown text={entry.text} />
        </div>
      );
    case "notice":
      return <p className="agent-chat-notice">{entry.text}</p>;
    case "tool":
      return <ToolCall entry={entry} busy={busy} onDecide={onDecide} onShowChange={onShowChange} />;
  }
}

function ToolCall({
  entry,
  busy,
  onDecide,
  onShowChange,
}: {
  entry: ToolEntry;
  busy: boolean;
  onDecide: (approvalId: string, approved: boolean, input?: Record<string, unknown>) => Promise<void>;
  onShowChange: (path: string, toolCallId: string) => void;
}) {
  const approvalId = entry.approvalId;
  const changedPath = (entry.input as { path?: unknown } | undefined)?.path;
  const field = EDITABLE[entry.tool];
  const [edit, setEdit] = useState<string>();
  const original = field ? (entry.input as Record<string, unknown> | undefined)?.[field] : undefined;
  return (
    <div className={`agent-chat-tool ${entry.status}`} data-testid="agent-chat-tool" data-status={entry.status}>
      <div className="agent-chat-tool-head">
        <strong>{TOOL_TITLES[entry.tool] ?? entry.tool}</strong>
        <span className="agent-chat-tool-status">{STATUS_LABELS[entry.status]}</span>
      </div>
      {edit === undefined ? (
        <ToolInput entry={entry} />
      ) : (
        <textarea
          className="agent-chat-edit"
          value={edit}
          onChange={(e) => setEdit(e.target.value)}
          aria-label={`The ${field} to approve`}
          rows={Math.min(12, edit.split("\n").length + 1)}
          data-testid="agent-chat-edit-input"
        />
      )}
      {entry.status === "pending" && approvalId && edit !== undefined && field && (
        <div className="agent-chat-decision">
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => void onDecide(approvalId, true, { [field]: edit }).then(() => setEdit(undefined))}
            data-testid="agent-chat-approve-edited"
          >
            Approve edited
          </button>
          <button type="button" disabled={busy} onClick={() => setEdit(undefined)}>
            Cancel
          </button>
        </div>
      )}
      {entry.status === "pending" && approvalId && edit === undefined && (
        <div className="agent-chat-decision">
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => void onDecide(approvalId, true)}
            data-testid="agent-chat-approve"
          >
            Approve
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() => void onDecide(approvalId, false)}
            data-testid="agent-chat-reject"
          >
            Reject
          </button>
          {field && typeof original === "string" && (
            <button type="button" disabled={busy} onClick={() => setEdit(original)} data-testid="agent-chat-edit">
              Edit
            </button>
          )}
        </div>
      )}
      {isWrittenFile(entry) && typeof changedPath === "string" && (
        <div className="agent-chat-decision">
          <button
            type="button"
            onClick={() => onShowChange(changedPath, entry.toolCallId)}
            data-testid="agent-chat-show-change"
          >
            Show the change in the editor
          </button>
        </div>
      )}
      {entry.output !== undefined && (
        <details className="agent-chat-output">
          <summary>Output</summary>
          <pre data-testid="agent-chat-output">{entry.output}</pre>
        </details>
      )}
    </div>
  );
}

/** What the tool is asked to do, as a person checks it: the command, the file and its content, the edit as a diff. */
function ToolInput({ entry }: { entry: ToolEntry }) {
  const input = (entry.input ?? {}) as Record<string, unknown>;
  const str = (value: unknown) => (typeof value === "string" ? value : "");
  switch (entry.tool) {
    case "run_command":
      return (
        <pre className="agent-chat-command" data-testid="agent-chat-command">
          {`$ ${str(input.command)}`}
          {input.cwd && input.cwd !== "." ? `\n(in ${str(input.cwd)})` : ""}
        </pre>
      );
    case "write_file":
      return (
        <>
          <code className="agent-chat-path">{str(input.path)}</code>
          <pre className="agent-chat-diff" data-testid="agent-chat-diff">
            {lines(str(input.content), "+ ")}
          </pre>
        </>
      );
    case "edit_file":
      return (
        <>
          <code className="agent-chat-path">{str(input.path)}</code>
          <pre className="agent-chat-diff" data-testid="agent-chat-diff">
            {lines(str(input.oldText), "- ")}
            {"\n"}
            {lines(str(input.newText), "+ ")}
          </pre>
        </>
      );
    default:
      return <pre className="agent-chat-args">{JSON.stringify(input, null, 1)}</pre>;
  }
}

function lines(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => `${prefix}${line}`)
    .join("\n");
}
