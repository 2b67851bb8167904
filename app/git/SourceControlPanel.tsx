import { useEffect, useMemo, useSyncExternalStore } from "react";
import type { GitApi } from "../api/git";
import type { NetworkApi } from "../api/network";
import { useAction } from "../hooks/useAction";
import { BranchBar } from "./BranchBar";
import { ChangeList } from "./ChangeList";
import { CommitBox } from "./CommitBox";
import { CredentialsSection } from "./CredentialsSection";
import { GitLogList } from "./GitLogList";
import { GitCredentialsModel } from "./git-credentials-model";
import type { GitModel } from "./git-model";
import { SyncOutput } from "./SyncOutput";
import "./git.css";

/**
 * The Source Control panel (app/git/git-model.ts holds its state): Initialize
 * for a folder that is not a repository; else the branch with fetch / pull /
 * push, the commit box, the changed files, and the recent log.
 */
export function SourceControlPanel({ model, api }: { model: GitModel; api: { git: GitApi; network: NetworkApi } }) {
  const git = useSyncExternalStore(model.subscribe, model.getSnapshot);
  const action = useAction();
  const credentials = useMemo(() => new GitCredentialsModel(api.git, api.network), [api.git, api.network]);
  useEffect(() => {
    void credentials.load().catch(() => {});
    return () => credentials.stopSignIn();
  }, [credentials]);
  const { status } = git;

  const body = () => {
    if (status === undefined) {
      return git.error ? null : <p className="placeholder">Reading git status…</p>;
    }
    if (!status.repository) {
      return (
        <div className="git-init" data-testid="git-not-repository">
          <p>/workspace is not a Git repository.</p>
          <button
            type="button"
            data-testid="git-init"
            onClick={() => void action.run(() => model.init(), "Initializing…")}
          >
            Initialize repository
          </button>
        </div>
      );
    }
    return (
      <>
        <BranchBar status={status} git={git} model={model} run={action.run} />
        {git.sync && <SyncOutput sync={git.sync} onDismiss={() => model.dismissSync()} />}
        <CommitBox
          git={git}
          model={model}
          stagedCount={status.staged.length}
          onCommit={() => void action.run(() => model.commit(), "Committing…")}
        />
        {status.truncated && (
          <p className="git-truncated" role="status">
            Showing {status.staged.length + status.changed.length + status.untracked.length + status.conflicted.length}{" "}
            of {status.total} changed files.
          </p>
        )}
        <ChangeList
          status={status}
          model={model}
          run={action.run}
          selected={git.diff && { path: git.diff.path, staged: git.diff.staged }}
        />
        <GitLogList log={git.log} />
        <CredentialsSection model={credentials} />
      </>
    );
  };

  return (
    <div className="git-panel" data-testid="git-panel" aria-busy={action.busy !== undefined}>
      {(action.error ?? git.error) && (
        <div className="git-error" role="alert" data-testid="git-error">
          <pre>{action.error ?? git.error}</pre>
          <button
            type="button"
            aria-label="Dismiss"
            onClick={action.error ? action.dismiss : () => model.dismissError()}
          >
            ×
          </button>
        </div>
      )}
      {action.busy && <div className="git-busy">{action.busy}</div>}
      {body()}
    </div>
  );
}
