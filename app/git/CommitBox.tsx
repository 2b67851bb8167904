import type { GitModel, GitSnapshot } from "./git-model";

/** The commit message, amend, and Commit (Ctrl/Cmd+Enter in the box). */
export function CommitBox({
  git,
  model,
  stagedCount,
  onCommit,
}: {
  git: GitSnapshot;
  model: GitModel;
  stagedCount: number;
  onCommit: () => void;
}) {
  const canCommit = git.draft.trim() !== "" && (stagedCount > 0 || git.amend);
  return (
    <div className="git-commit">
      <textarea
        data-testid="git-message"
        aria-label="Commit message"
        placeholder={`Message (${navigator.platform.includes("Mac") ? "⌘" : "Ctrl"}+Enter to commit)`}
        rows={3}
        value={git.draft}
        onChange={(e) => model.setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            onCommit();
          }
        }}
      />
      <div className="git-commit-row">
        <label className="git-amend">
          <input
            type="checkbox"
            data-testid="git-amend"
            checked={git.amend}
            onChange={(e) => model.setAmend(e.target.checked)}
          />
          Amend last commit
        </label>
        <button type="button" data-testid="git-commit" disabled={!canCommit} onClick={onCommit}>
          {git.amend ? "Amend" : `Commit${stagedCount > 0 ? ` (${stagedCount})` : ""}`}
        </button>
      </div>
    </div>
  );
}
