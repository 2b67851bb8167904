import { useCallback, useEffect, useState } from "react";
import { DEFAULT_TERMINAL } from "../../protocol/terminal";
import type { TerminalsApi } from "../api/workspace";
import { useAction } from "../hooks/useAction";
import type { ConnectionState } from "../terminal/terminal-connection";
import { TerminalView } from "./TerminalView";
import "./terminal.css";

const STATE_LABEL: Record<ConnectionState, string> = {
  connecting: "Connecting…",
  connected: "Connected",
  reconnecting: "Reconnecting…",
  exited: "Exited",
  sleeping: "Workspace asleep",
};

/** Terminal tabs of a workspace: one tmux session each, kept across reloads. */
export function TerminalPanel({ terminals }: { terminals: TerminalsApi }) {
  const [names, setNames] = useState<string[] | undefined>(undefined);
  const [active, setActive] = useState<string>(DEFAULT_TERMINAL);
  const [states, setStates] = useState<Record<string, ConnectionState>>({});
  const [searchOpen, setSearchOpen] = useState(false);
  const action = useAction();
  const storageKey = `cloud-ide.terminal.${terminals.workspaceId}`;

  // The tabs are the workspace's tmux sessions, so a reload finds them all.
  useEffect(() => {
    let cancelled = false;
    terminals
      .list()
      .then((list) => list.map((t) => t.name))
      // Not listed (asleep, starting): the default terminal connects and says why.
      .catch(() => [] as string[])
      .then((found) => {
        if (cancelled) return;
        const list = found.length > 0 ? found : [DEFAULT_TERMINAL];
        const saved = localStorage.getItem(storageKey);
        setNames(list);
        setActive(saved && list.includes(saved) ? saved : (list[0] as string));
      });
    return () => {
      cancelled = true;
    };
  }, [terminals, storageKey]);

  const activate = useCallback(
    (name: string) => {
      setActive(name);
      localStorage.setItem(storageKey, name);
    },
    [storageKey],
  );

  const onStateChange = useCallback((name: string, state: ConnectionState) => {
    setStates((previous) => ({ ...previous, [name]: state }));
  }, []);

  const addTerminal = () => {
    const taken = new Set(names);
    let n = 2;
    while (taken.has(`term-${n}`)) n++;
    const name = taken.has(DEFAULT_TERMINAL) ? `term-${n}` : DEFAULT_TERMINAL;
    setNames([...(names ?? []), name]);
    activate(name);
  };

  const closeTerminal = async (name: string) => {
    const info = await terminals
      .list()
      .then((list) => list.find((t) => t.name === name))
      .catch(() => undefined);
    if (info?.busy && !window.confirm(`"${info.command}" is still running in ${name}. End it?`)) return;
    const rest = (names ?? []).filter((n) => n !== name);
    const next = rest.length > 0 ? rest : [name === DEFAULT_TERMINAL ? "term-2" : DEFAULT_TERMINAL];
    setNames(next);
    if (active === name) activate(next[Math.max(0, (names ?? []).indexOf(name) - 1)] ?? (next[0] as string));
    // Unmounting the view closed its socket; now end the tmux session itself.
    await action.run(() => terminals.remove(name));
  };

  const state = states[active] ?? "connecting";
  return (
    <div className="terminal-panel">
      <div className="terminal-tabs" role="tablist" aria-label="Terminals">
        {names?.map((name) => (
          <div key={name} className={name === active ? "terminal-tab active" : "terminal-tab"}>
            <button
              type="button"
              role="tab"
              aria-selected={name === active}
              data-testid={`terminal-tab-${name}`}
              onClick={() => activate(name)}
            >
              <span className={`dot dot-${states[name] ?? "connecting"}`} aria-hidden />
              {name}
            </button>
            <button
              type="button"
              className="terminal-tab-close"
              aria-label={`Close terminal ${name}`}
              title={`Close terminal ${name}`}
              data-testid={`terminal-close-${name}`}
              onClick={() => void closeTerminal(name)}
            >
              ×
            </button>
          </div>
        ))}
        <button
          type="button"
          className="terminal-new"
          aria-label="New terminal"
          title="New terminal"
          data-testid="terminal-new"
          onClick={addTerminal}
        >
          +
        </button>
        <span className="terminal-tabs-spacer" />
        <button
          type="button"
          className="terminal-search-toggle"
          aria-label="Search the terminal (Ctrl+Shift+F)"
          title="Search (Ctrl+Shift+F)"
          onClick={() => setSearchOpen((open) => !open)}
        >
          ⌕
        </button>
        <span className={`connection-status state-${state}`} data-testid="connection-status" data-state={state}>
          {STATE_LABEL[state]}
        </span>
      </div>
      {action.error && (
        <p className="terminal-error" role="alert">
          Could not end the terminal: {action.error}
        </p>
      )}
      <div className="terminal-stack">
        {names?.map((name) => (
          <TerminalView
            key={name}
            terminals={terminals}
            name={name}
            active={name === active}
            searchOpen={searchOpen}
            onToggleSearch={() => setSearchOpen((open) => !open)}
            onStateChange={onStateChange}
          />
        ))}
      </div>
    </div>
  );
}
