import { useState } from "react";

/** The terminal's text as plain, selectable text (touch screens select and copy here). */
export function TerminalTextSheet({ text, onClose }: { text: string; onClose: () => void }) {
  const [copied, setCopied] = useState<string>();
  const copyAll = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied("Copied");
    } catch {
      setCopied("Select the text and copy it");
    }
  };
  return (
    <div className="terminal-text-sheet" role="dialog" aria-label="Terminal text" data-testid="terminal-text-sheet">
      <div className="terminal-text-actions">
        <button type="button" onClick={() => void copyAll()}>
          Copy all
        </button>
        <span className="hint">{copied ?? "Select text to copy it"}</span>
        <span className="spacer" />
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <pre className="terminal-text" data-testid="terminal-text">
        {text}
      </pre>
    </div>
  );
}
