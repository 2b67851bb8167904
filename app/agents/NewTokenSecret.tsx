import { useState } from "react";
import type { CreatedAgentToken } from "../../protocol/agents";
import { claudeCodeCommand, cursorConfig } from "./client-config";

/** The token's secret, shown this once, with ready-to-paste client configurations. */
export function NewTokenSecret({ created, onDone }: { created: CreatedAgentToken; onDone: () => void }) {
  const snippets = [
    { id: "token", label: "Token", text: created.token },
    { id: "claude", label: "Claude Code", text: claudeCodeCommand(created.name, created.mcpUrl, created.token) },
    {
      id: "cursor",
      label: "Cursor (.cursor/mcp.json)",
      text: cursorConfig(created.name, created.mcpUrl, created.token),
    },
  ];
  return (
    <section className="agents-created" data-testid="agent-token-created" aria-live="polite">
      <h3>
        {created.name} ({created.scope})
      </h3>
      <p className="agents-warning">
        Copy the token now: it is shown only this once (the IDE keeps only its hash). Anyone with it can{" "}
        {created.scope === "write" ? "change files and run commands in" : "read"} this workspace until{" "}
        {new Date(created.expiresAt).toLocaleString()} or until you revoke it.
      </p>
      {snippets.map((s) => (
        <Snippet key={s.id} id={s.id} label={s.label} text={s.text} />
      ))}
      <button type="button" data-testid="agent-token-done" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

function Snippet({ id, label, text }: { id: string; label: string; text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="agents-snippet">
      <div className="agents-snippet-head">
        <span>{label}</span>
        <button
          type="button"
          data-testid={`copy-${id}`}
          onClick={() =>
            void navigator.clipboard.writeText(text).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <pre data-testid={`snippet-${id}`}>{text}</pre>
    </div>
  );
}
