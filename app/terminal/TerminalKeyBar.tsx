import { type PointerEvent, useState } from "react";
import type { TerminalConnection } from "./terminal-connection";

const ARROWS = { "←": "D", "↑": "A", "↓": "B", "→": "C" } as const;
const PLAIN = ["|", "~", "/"] as const;

/**
 * Keys an on-screen keyboard lacks, above it: Esc, Ctrl and Alt (held for the
 * next key), Tab, arrows, | ~ /, and Select (the terminal's text, for
 * selecting and copying by touch). Buttons never take the focus, so the
 * keyboard stays open.
 */
export function TerminalKeyBar({
  connection,
  applicationCursor,
  onSelect,
}: {
  connection: () => TerminalConnection | undefined;
  /** Whether the terminal wants arrows as ESC O x (application cursor mode). */
  applicationCursor: () => boolean;
  onSelect: () => void;
}) {
  const [ctrl, setCtrl] = useState(false);
  const [alt, setAlt] = useState(false);
  const keep = (event: PointerEvent) => event.preventDefault();
  const arm = (next: { ctrl: boolean; alt: boolean }) => {
    setCtrl(next.ctrl);
    setAlt(next.alt);
    connection()?.armModifiers(next, () => {
      setCtrl(false);
      setAlt(false);
    });
  };
  const send = (data: string | (() => string)) => connection()?.type(typeof data === "string" ? data : data());
  const key = (label: string, data: string | (() => string), testId: string) => (
    <button type="button" key={testId} data-testid={`key-${testId}`} onPointerDown={keep} onClick={() => send(data)}>
      {label}
    </button>
  );
  return (
    <div className="terminal-key-bar" role="toolbar" aria-label="Terminal keys" data-testid="terminal-key-bar">
      {key("Esc", "\x1b", "esc")}
      <button
        type="button"
        data-testid="key-ctrl"
        aria-pressed={ctrl}
        onPointerDown={keep}
        onClick={() => arm({ ctrl: !ctrl, alt })}
      >
        Ctrl
      </button>
      <button
        type="button"
        data-testid="key-alt"
        aria-pressed={alt}
        onPointerDown={keep}
        onClick={() => arm({ ctrl, alt: !alt })}
      >
        Alt
      </button>
      {key("Tab", "\t", "tab")}
      {Object.entries(ARROWS).map(([label, code]) =>
        key(label, () => `\x1b${applicationCursor() ? "O" : "["}${code}`, `arrow-${code.toLowerCase()}`),
      )}
      {PLAIN.map((c) => key(c, c, `char-${c.charCodeAt(0)}`))}
      <button type="button" data-testid="key-select" onPointerDown={keep} onClick={onSelect}>
        Select
      </button>
    </div>
  );
}
