import { useCallback, useEffect, useState } from "react";
import { DEFAULT_TERMINAL } from "../../protocol/terminal";
import type { TerminalsApi } from "../api/workspace";
import type { PeopleAt } from "../collab/presence-model";
import { useRegisterCommands } from "../commands/useCommands";
import { useAction } from "../hooks/useAction";
import { TOUCH_SCREEN, useMediaQuery } from "../hooks/useMediaQuery";
import { terminalRegistry } from "./registry";
import { TerminalKeyBar } from "./TerminalKeyBar";
import { TerminalTabs } from "./TerminalTabs";
import { TerminalTextSheet } from "./TerminalTextSheet";
import { TerminalView } from "./TerminalView";
import type { ConnectionState } from "./terminal-connection";
import { terminalText } from "./touch";
import "./terminal.css";

/** Terminal tabs of a workspace: one tmux session each, kept across reloads. */
export function TerminalPanel({
  terminals,
  onConnected,
  readOnly = false,
  watchers,
  onShow,
}: {
  terminals: TerminalsApi;
  /** A viewer's terminals: output only (the server drops their keystrokes); the tabs say so. */
  readOnly?: boolean;
  /** A terminal (re)connected: the container may be a new one, so the page looks at the status again. */
  onConnected?: () => void;
  /** Who else shows each terminal (presence). */
  watchers?: PeopleAt;
  /** The terminal this panel shows, as it changes (presence tells the others). */
  onShow?: (name: string | undefined) => void;
}) {
  const [names, setNames] = useState<string[] | undefined>(undefined);
  const [active, setActive] = useState<string>(DEFAULT_TERMINAL);
  const [states, setStates] = useState<Record<string, ConnectionState>>({});
  const [searchOpen, setSearchOpen] = useState(false);
  const [selecting, setSelecting] = useState<string>();
  const touch = useMediaQuery(TOUCH_SCREEN);
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

  // Before the list arrives, no terminal shows yet.
  useEffect(() => onShow?.(names ? active : undefined), [onShow, names, active]);

  const activate = useCallback(
    (name: string) => {
      setActive(name);
      localStorage.setItem(storageKey, name);
    },
    [storageKey],
  );

  const onStateChange = useCallback(
    (name: string, state: ConnectionState) => {
      setStates((previous) => ({ ...previous, [name]: state }));
      if (state === "connected") onConnected?.();
    },
    [onConnected],
  );

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

  useRegisterCommands(
    () => [
      { id: "terminal.new", title: "New terminal", run: addTerminal },
      { id: "terminal.find", title: "Search the terminal's scrollback", run: () => setSearchOpen(true) },
    ],
    [names, active],
  );

  return (
    <div className="terminal-panel">
      <TerminalTabs
        names={names ?? []}
        active={active}
        states={states}
        readOnly={readOnly}
        watchers={watchers}
        onActivate={activate}
        onClose={(name) => void closeTerminal(name)}
        onNew={addTerminal}
        onToggleSearch={() => setSearchOpen((open) => !open)}
      />
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
        {selecting !== undefined && <TerminalTextSheet text={selecting} onClose={() => setSelecting(undefined)} />}
      </div>
      {touch && (
        <TerminalKeyBar
          connection={() => terminalRegistry.get(active)?.connection}
          applicationCursor={() => terminalRegistry.get(active)?.terminal.modes.applicationCursorKeysMode ?? false}
          onSelect={() => {
            const terminal = terminalRegistry.get(active)?.terminal;
            setSelecting(terminal ? terminalText(terminal) : "");
          }}
        />
      )}
    </div>
  );
}
