import { useEffect, useRef, useState } from "react";
import type { ImportResult, SaveResult } from "../../protocol/workspace";
import { ApiRequestError, apiJson } from "../api";
import type { StatusView } from "../hooks/useWorkspaceStatus";
import "./LifecycleControls.css";

interface Props {
  workspaceId: string;
  status: StatusView;
  /** Wakes the workspace and reloads its status. */
  onWake: () => Promise<void>;
  /** Reloads the status without waking. */
  onChanged: () => Promise<void>;
}

const PROCESSES_NOTE =
  "Files, installed packages and shell history are saved. Running processes (dev servers, jobs in the terminal) do not survive a sleep: start them again after waking.";

/**
 * Save now, "saved N minutes ago", and the workspace menu: stop, export,
 * import. A failed restore offers its two ways out: start fresh or import.
 */
export function LifecycleControls({ workspaceId, status, onWake, onChanged }: Props) {
  const [busy, setBusy] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const fileInput = useRef<HTMLInputElement>(null);
  const base = `/api/workspaces/${workspaceId}`;

  const act = async (label: string, action: () => Promise<unknown>) => {
    setBusy(label);
    setError(undefined);
    try {
      await action();
    } catch (e) {
      setError(e instanceof ApiRequestError ? e.message : String(e));
    } finally {
      setBusy(undefined);
      await onChanged();
    }
  };

  const save = () => act("Saving…", () => apiJson<SaveResult>(`${base}/save`, { method: "POST" }));
  const stop = () => act("Stopping…", () => apiJson<SaveResult>(`${base}/stop`, { method: "POST" }));
  const reset = () => {
    if (!window.confirm("Start this workspace fresh, without the files of the snapshot that failed to restore?"))
      return;
    void act("Resetting…", async () => {
      await apiJson<void>(`${base}/reset`, { method: "POST" });
      await onWake();
    });
  };
  const importFile = (file: File) =>
    act("Importing…", async () => {
      await onWake();
      await apiJson<ImportResult>(`${base}/import`, {
        method: "POST",
        headers: { "Content-Type": "application/gzip" },
        body: file,
      });
    });

  const running = status.state === "running" || status.state === "saving";
  const restoreFailed = status.state === "failed" && status.error?.code === "SNAPSHOT_RESTORE_FAILED";

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
      <details className="lifecycle-menu">
        <summary data-testid="workspace-menu">Workspace ▾</summary>
        <div className="lifecycle-menu-items" role="menu">
          <a role="menuitem" href={`${base}/export`} download={`${workspaceId}.tar.gz`} data-testid="export">
            Export /workspace (.tar.gz)
          </a>
          <button
            type="button"
            role="menuitem"
            onClick={() => fileInput.current?.click()}
            data-testid="import"
            title="Only into an empty workspace"
          >
            Import archive into this empty workspace…
          </button>
          <button
            type="button"
            role="menuitem"
            onClick={stop}
            disabled={!running || busy !== undefined}
            data-testid="stop"
          >
            Save and sleep now
          </button>
          <p className="lifecycle-note">{PROCESSES_NOTE}</p>
          {status.idleTimeoutSeconds !== undefined && (
            <p className="lifecycle-note">
              Sleeps by itself after {Math.round(status.idleTimeoutSeconds / 60)} minutes without an open terminal,
              preview or request, after saving.
            </p>
          )}
        </div>
      </details>
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
      {error && (
        <span className="status-error" role="alert" data-testid="lifecycle-error">
          {error}
        </span>
      )}
    </span>
  );
}

/** "saved 3 minutes ago", refreshed every 15 s. */
function LastSaved({ at }: { at: string | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, []);
  return (
    <span className="last-saved" data-testid="last-saved" title={at ?? undefined}>
      {at ? `saved ${ago(now - Date.parse(at))}` : "not saved yet"}
    </span>
  );
}

export function ago(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? "" : "s"} ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} hour${hours === 1 ? "" : "s"} ago`;
  return `${Math.floor(hours / 24)} days ago`;
}
