import { type ReactNode, useRef, useState } from "react";
import { ErrorCode } from "../../protocol/errors";
import type { Role } from "../../protocol/roles";
import { AGENT_CHAT_COMMAND } from "../agent-chat/agent-chat-command";
import { AgentsDialog } from "../agents/AgentsDialog";
import type { WorkspaceApi } from "../api/workspace";
import { BackupsPanel } from "../backups/BackupsPanel";
import { useCommands, useRegisterCommands } from "../commands/useCommands";
import { download } from "../components/ContextMenu";
import { useAction } from "../hooks/useAction";
import { useNow } from "../hooks/useNow";
import { ago } from "../time";
import type { StatusView } from "./workspace-status-model";
import "./WorkspaceMenu.css";

interface Props {
  api: WorkspaceApi;
  status: StatusView;
  /** Wakes the workspace and reloads its status. */
  onWake: () => Promise<void>;
  /** Reloads the status without waking. */
  onChanged: () => Promise<void>;
  /** The caller's role, once known: Agents… and Backups… are the owner's, the agent panel an editor's. */
  role?: Role;
}

const PROCESSES_NOTE =
  "Files, installed packages and shell history are saved. Running processes (dev servers, jobs in the terminal) do not survive a sleep: start them again after waking.";

/**
 * Save now, "saved N minutes ago", and the workspace menu: stop, export,
 * import, backups, agents (secondary actions live in the menu, so the header
 * fits a phone). A failed restore offers its two ways out: start fresh or import.
 */
export function WorkspaceMenu({ api, status, onWake, onChanged, role }: Props) {
  const action = useAction();
  const commands = useCommands();
  const busy = action.busy;
  const fileInput = useRef<HTMLInputElement>(null);
  const [backupsOpen, setBackupsOpen] = useState(false);
  const [agentsOpen, setAgentsOpen] = useState(false);
  const act = async (label: string, run: () => Promise<unknown>) => {
    await action.run(run, label);
    await onChanged();
  };

  const save = () => act("Saving…", () => api.save());
  const stop = () => act("Stopping…", () => api.stop());
  const reset = () => {
    if (!window.confirm("Start this workspace fresh, without the files of the snapshot that failed to restore?"))
      return;
    void act("Resetting…", async () => {
      await api.reset();
      await onWake();
    });
  };
  const importFile = (file: File) => {
    if (!window.confirm(`Replace everything in /workspace with the files of ${file.name}?`)) return;
    return act("Importing…", async () => {
      await onWake();
      await api.importArchive(file);
    });
  };

  const running = status.state === "running" || status.state === "saving";
  const isOwner = role === "owner";
  useRegisterCommands(
    () => [
      { id: "workspace.save", title: "Save the workspace now", enabled: () => running && !busy, run: save },
      ...(isOwner
        ? [
            {
              id: "agents.toggle",
              title: "Agents: MCP access tokens and agent activity",
              run: () => setAgentsOpen((shown) => !shown),
            },
          ]
        : []),
    ],
    [running, busy, isOwner],
  );
  const restoreFailed = status.state === "failed" && status.error?.code === ErrorCode.SNAPSHOT_RESTORE_FAILED;

  return (
    <span className="lifecycle" data-testid="lifecycle">
      <LastSaved at={status.lastSavedAt ?? null} />
      {running && (
        <button
          type="button"
          onClick={save}
          disabled={busy !== undefined}
          data-testid="save-now"
          title={PROCESSES_NOTE}
        >
          {busy ?? "Save now"}
        </button>
      )}
      {status.state === "sleeping" && (
        <button type="button" onClick={() => void act("Waking…", onWake)} data-testid="wake" title={PROCESSES_NOTE}>
          Wake
        </button>
      )}
      {restoreFailed && (
        <>
          <button type="button" onClick={reset} data-testid="start-fresh">
            Start fresh
          </button>
          <button type="button" onClick={() => fileInput.current?.click()} data-testid="import-after-failure">
            Import archive…
          </button>
        </>
      )}
      <MenuItems
        exportUrl={api.exportUrl()}
        exportName={`${api.id}.tar.gz`}
        role={role}
        canStop={running && busy === undefined}
        idleTimeoutSeconds={status.idleTimeoutSeconds}
        onExport={() => {
          void action.run(async () => {
            await onWake();
            download(api.exportUrl());
          }, "Waking to export…");
        }}
        onImport={() => fileInput.current?.click()}
        onBackups={() => setBackupsOpen(true)}
        onAgentChat={() => commands.run(AGENT_CHAT_COMMAND)}
        onAgents={() => setAgentsOpen(true)}
        onStop={() => void stop()}
      />
      {agentsOpen && isOwner && <AgentsDialog api={api.agents} onClose={() => setAgentsOpen(false)} />}
      {backupsOpen && isOwner && (
        <BackupsPanel api={api.backups} onWake={onWake} onChanged={onChanged} onClose={() => setBackupsOpen(false)} />
      )}
      <input
        ref={fileInput}
        type="file"
        accept=".tar.gz,.tgz,application/gzip"
        hidden
        data-testid="import-file"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = "";
          if (file) void importFile(file);
        }}
      />
      {busy && !running && <span className="lifecycle-busy">{busy}</span>}
      {action.error && (
        <span className="status-error" role="alert" data-testid="lifecycle-error">
          {action.error}
        </span>
      )}
    </span>
  );
}

interface MenuItemsProps {
  exportUrl: string;
  exportName: string;
  role?: Role;
  canStop: boolean;
  idleTimeoutSeconds?: number;
  onExport: () => void;
  onImport: () => void;
  onBackups: () => void;
  onAgentChat: () => void;
  onAgents: () => void;
  onStop: () => void;
}

/** The menu's items: export, import, backups, the agents, and sleep. Choosing one closes the menu. */
function MenuItems({ exportUrl, exportName, role, canStop, idleTimeoutSeconds, ...on }: MenuItemsProps) {
  const isOwner = role === "owner";
  const isEditor = role === "owner" || role === "editor";
  const menu = useRef<HTMLDetailsElement>(null);
  const choose = (item: () => void) => () => {
    if (menu.current) menu.current.open = false;
    item();
  };
  return (
    <details className="lifecycle-menu" ref={menu}>
      <summary data-testid="workspace-menu" aria-label="Workspace menu">
        <span className="label">Workspace</span> ▾
      </summary>
      <div className="lifecycle-menu-items" role="menu">
        <a
          role="menuitem"
          href={exportUrl}
          download={exportName}
          data-testid="export"
          onClick={(event) => {
            // The export only reads a running workspace (GETs never wake it): wake it first.
            event.preventDefault();
            choose(on.onExport)();
          }}
        >
          Export /workspace (.tar.gz)
        </a>
        <MenuButton onChoose={choose(on.onImport)} testId="import" title="Replaces everything in /workspace">
          Import archive (replaces /workspace)…
        </MenuButton>
        {isOwner && (
          <MenuButton
            onChoose={choose(on.onBackups)}
            testId="backups"
            title="Your files, backed up apart from the system"
          >
            Backups…
          </MenuButton>
        )}
        {isEditor && (
          <MenuButton
            onChoose={choose(on.onAgentChat)}
            testId="agent-chat-open"
            title="Chat with an agent that reads, edits and runs things here (it asks before it changes anything)"
          >
            Agent chat…
          </MenuButton>
        )}
        {isOwner && (
          <MenuButton
            onChoose={choose(on.onAgents)}
            testId="agents-open"
            title="Let a coding agent (Claude Code, Cursor, …) work in this workspace over MCP"
          >
            Agents (MCP tokens, activity)…
          </MenuButton>
        )}
        <MenuButton onChoose={choose(on.onStop)} testId="stop" disabled={!canStop}>
          Save and sleep now
        </MenuButton>
        <p className="lifecycle-note">{PROCESSES_NOTE}</p>
        {idleTimeoutSeconds !== undefined && (
          <p className="lifecycle-note">
            Sleeps by itself after {Math.round(idleTimeoutSeconds / 60)} minutes without an open terminal, preview or
            request, after saving.
          </p>
        )}
      </div>
    </details>
  );
}

/** One item of the workspace menu. */
function MenuButton(props: {
  onChoose: () => void;
  testId: string;
  title?: string;
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      role="menuitem"
      onClick={props.onChoose}
      disabled={props.disabled}
      data-testid={props.testId}
      title={props.title}
    >
      {props.children}
    </button>
  );
}

/** "saved 3 minutes ago", refreshed every 15 s. */
function LastSaved({ at }: { at: string | null }) {
  const now = useNow(15_000);
  return (
    <span className="last-saved" data-testid="last-saved" title={at ?? undefined}>
      {at ? `saved ${ago(now - Date.parse(at))}` : "not saved yet"}
    </span>
  );
}
