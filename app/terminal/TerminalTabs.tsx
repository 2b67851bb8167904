import { PeopleMark } from "../collab/PresenceAvatars";
import type { PeopleAt } from "../collab/presence-model";
import type { ConnectionState } from "./terminal-connection";

const STATE_LABEL: Record<ConnectionState, string> = {
  connecting: "Connecting…",
  connected: "Connected",
  reconnecting: "Reconnecting…",
  exited: "Exited",
  sleeping: "Workspace asleep",
};

/** The terminal tabs, new and close buttons, the search toggle and the active terminal's connection state. */
export function TerminalTabs({
  names,
  active,
  states,
  readOnly,
  watchers,
  onActivate,
  onClose,
  onNew,
  onToggleSearch,
}: {
  names: readonly string[];
  active: string;
  states: Record<string, ConnectionState>;
  /** Shown as a lasting badge: a note written into the terminal would be drawn over by tmux. */
  readOnly: boolean;
  /** Who else shows each terminal. */
  watchers?: PeopleAt;
  onActivate: (name: string) => void;
  onClose: (name: string) => void;
  onNew: () => void;
  onToggleSearch: () => void;
}) {
  const state = states[active] ?? "connecting";
  return (
    <div className="terminal-tabs" role="tablist" aria-label="Terminals">
      {names.map((name) => (
        <div key={name} className={name === active ? "terminal-tab active" : "terminal-tab"}>
          <button
            type="button"
            role="tab"
            aria-selected={name === active}
            data-testid={`terminal-tab-${name}`}
            onClick={() => onActivate(name)}
          >
            <span className={`dot dot-${states[name] ?? "connecting"}`} aria-hidden />
            {name}
            {(watchers?.get(name)?.length ?? 0) > 0 && (
              <PeopleMark
                people={watchers?.get(name) ?? []}
                label={(names) => `Also watching ${name}: ${names}`}
                testId={`terminal-watchers-${name}`}
              />
            )}
          </button>
          <button
            type="button"
            className="terminal-tab-close"
            aria-label={`Close terminal ${name}`}
            title={`Close terminal ${name}`}
            data-testid={`terminal-close-${name}`}
            onClick={() => onClose(name)}
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
        onClick={onNew}
      >
        <span aria-hidden="true">+</span>
        <span className="label">New</span>
      </button>
      <span className="terminal-tabs-spacer" />
      <button
        type="button"
        className="terminal-search-toggle"
        aria-label="Search the terminal (Ctrl+Shift+F)"
        title="Search (Ctrl+Shift+F)"
        onClick={onToggleSearch}
      >
        <span aria-hidden="true">⌕</span>
        <span className="label">Search</span>
      </button>
      {readOnly && (
        <span
          className="terminal-read-only"
          data-testid="terminal-read-only"
          title="You are a viewer here: what you type is not sent."
        >
          Read-only
        </span>
      )}
      <span className={`connection-status state-${state}`} data-testid="connection-status" data-state={state}>
        {STATE_LABEL[state]}
      </span>
    </div>
  );
}
