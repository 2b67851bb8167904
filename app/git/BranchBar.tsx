import { type FormEvent, useState } from "react";
import type { GitModel, GitSnapshot, RepositoryStatus } from "./git-model";

/** The branch (switch or create one), how far it is from its upstream, and fetch / pull / push. */
export function BranchBar({
  status,
  git,
  model,
  run,
}: {
  status: RepositoryStatus;
  git: GitSnapshot;
  model: GitModel;
  run: (action: () => Promise<unknown>, label?: string) => Promise<boolean>;
}) {
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState("");
  const { branch } = status;
  const current = branch.head ?? `(detached at ${branch.oid?.slice(0, 7) ?? "?"})`;
  const local = git.branches.filter((b) => !b.remote);
  const remote = git.branches.filter((b) => b.remote);
  const syncing = git.sync?.state === "running";
  const create = (event: FormEvent) => {
    event.preventDefault();
    void run(() => model.createBranch(name), "Creating branch…").then((ok) => {
      if (!ok) return;
      setName("");
      setCreating(false);
    });
  };

  return (
    <div className="git-branch-bar">
      <div className="git-branch-row">
        <select
          aria-label="Branch"
          data-testid="git-branch"
          value={branch.head ?? ""}
          onChange={(e) => void run(() => model.checkout(e.target.value), "Switching…")}
        >
          {!branch.head && <option value="">{current}</option>}
          {branch.head && !local.some((b) => b.name === branch.head) && (
            <option value={branch.head}>{branch.head}</option>
          )}
          {local.map((b) => (
            <option key={b.name} value={b.name}>
              {b.name}
            </option>
          ))}
          {remote.length > 0 && (
            <optgroup label="Remote branches">
              {remote.map((b) => (
                <option key={b.name} value={b.name}>
                  {b.name}
                </option>
              ))}
            </optgroup>
          )}
        </select>
        <button type="button" title="New branch" data-testid="git-new-branch" onClick={() => setCreating(!creating)}>
          +
        </button>
        {branch.upstream && (
          <span className="git-ahead-behind" data-testid="git-ahead-behind" title={`Compared with ${branch.upstream}`}>
            ↑{branch.ahead ?? 0} ↓{branch.behind ?? 0}
          </span>
        )}
      </div>
      {creating && (
        <form className="git-new-branch" onSubmit={create}>
          <input
            aria-label="New branch name"
            data-testid="git-new-branch-name"
            placeholder="new-branch-name"
            value={name}
            // biome-ignore lint/a11y/noAutofocus: the person just asked for this field
            autoFocus
            onChange={(e) => setName(e.target.value)}
          />
          <button type="submit" disabled={name.trim() === ""}>
            Create
          </button>
        </form>
      )}
      <div className="git-sync-buttons">
        {(["fetch", "pull", "push"] as const).map((kind) => (
          <button
            key={kind}
            type="button"
            data-testid={`git-${kind}`}
            disabled={syncing}
            onClick={() => void run(() => model.sync(kind))}
          >
            {kind === "fetch" ? "Fetch" : kind === "pull" ? "↓ Pull" : "↑ Push"}
          </button>
        ))}
      </div>
    </div>
  );
}
