import type { SyncState } from "./git-model";

const TITLES = { pull: "Pull", push: "Push", fetch: "Fetch" } as const;

/** A pull, push or fetch: git's progress while it runs, then what it said (its error in full when it failed). */
export function SyncOutput({ sync, onDismiss }: { sync: SyncState; onDismiss: () => void }) {
  const state = sync.state === "running" ? "running…" : sync.state === "done" ? "done" : "failed";
  return (
    <div className={`git-sync git-sync-${sync.state}`} data-testid="git-sync" data-state={sync.state} role="status">
      <div className="git-sync-title">
        <strong>
          {TITLES[sync.kind]} {state}
        </strong>
        {sync.state !== "running" && (
          <button type="button" aria-label="Dismiss" onClick={onDismiss}>
            ×
          </button>
        )}
      </div>
      {sync.progress && (
        <div className="git-sync-progress" data-testid="git-sync-progress">
          {sync.progress}
        </div>
      )}
      {sync.state === "failed" ? (
        <pre className="git-sync-lines" data-testid="git-sync-error">
          {sync.message}
        </pre>
      ) : (
        sync.lines.length > 0 && <pre className="git-sync-lines">{sync.lines.slice(-6).join("\n")}</pre>
      )}
    </div>
  );
}
