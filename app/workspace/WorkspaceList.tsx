import { type FormEvent, useState } from "react";
import type { WorkspaceStatus } from "../../protocol/workspace";
import type { WorkspaceSummary, WorkspaceTemplate } from "../../protocol/workspaces";
import { useAction } from "../hooks/useAction";
import { ago } from "../time";
import { StatusBadge } from "./StatusBadge";
import { useWorkspaceStates } from "./useWorkspaceStates";
import type { useWorkspaces } from "./useWorkspaces";

interface Props {
  workspaces: ReturnType<typeof useWorkspaces>;
  onOpen: (id: string) => void;
  /** False for a guest, who may use the one workspace they were invited to and make none. */
  canCreate?: boolean;
}

/** The workspace switcher: create, rename, delete (with confirmation), open. */
export function WorkspaceList({ workspaces, onOpen, canCreate = true }: Props) {
  const [name, setName] = useState("");
  const [template, setTemplate] = useState<WorkspaceTemplate | "git">("vite-react");
  const [url, setUrl] = useState("");
  const [branch, setBranch] = useState("");
  const action = useAction();
  const act = action.run;
  const error = action.error;
  const list = workspaces.workspaces;
  const states = useWorkspaceStates(list?.map((w) => w.id) ?? []);

  const create = (event: FormEvent) => {
    event.preventDefault();
    void act(async () => {
      const created =
        template === "git"
          ? await workspaces.create(name, "empty", {
              url: url.trim(),
              ...(branch.trim() ? { branch: branch.trim() } : {}),
            })
          : await workspaces.create(name, template);
      setName("");
      setUrl("");
      setBranch("");
      onOpen(created.id);
    });
  };

  return (
    <main className="workspace-list" data-testid="workspace-list">
      <h1>Workspaces</h1>
      {canCreate && (
        <form className="create-workspace" onSubmit={create}>
          <label htmlFor="new-workspace-name">New workspace</label>
          <input
            id="new-workspace-name"
            placeholder="Name"
            maxLength={100}
            value={name}
            onFocus={workspaces.prepareSpare}
            onChange={(e) => setName(e.target.value)}
          />
          <select
            aria-label="Start from"
            value={template}
            onChange={(e) => setTemplate(e.target.value as WorkspaceTemplate | "git")}
          >
            <option value="vite-react">Vite + React app</option>
            <option value="empty">Empty (to import an archive)</option>
            <option value="git">A Git repository</option>
          </select>
          {template === "git" && (
            <>
              <input
                aria-label="Git URL"
                data-testid="new-workspace-git-url"
                placeholder="https://github.com/owner/repo.git"
                value={url}
                onChange={(e) => setUrl(e.target.value)}
              />
              <input
                aria-label="Branch (optional)"
                data-testid="new-workspace-git-branch"
                placeholder="branch (optional)"
                value={branch}
                onChange={(e) => setBranch(e.target.value)}
              />
            </>
          )}
          <button type="submit" disabled={name.trim().length === 0 || (template === "git" && url.trim() === "")}>
            Create
          </button>
        </form>
      )}
      {(error ?? workspaces.error) && (
        <p className="form-error" role="alert">
          {error ?? workspaces.error}
        </p>
      )}
      {list === undefined ? (
        <p className="placeholder">Loading…</p>
      ) : list.length === 0 ? (
        <p className="placeholder">No workspaces yet. Create one to get a Linux sandbox with a shell and an editor.</p>
      ) : (
        <ul className="workspace-items">
          {list.map((w) => (
            <WorkspaceItem
              key={w.id}
              workspace={w}
              status={states.get(w.id)}
              onOpen={() => onOpen(w.id)}
              onRename={(newName) => act(() => workspaces.rename(w.id, newName))}
              onDelete={() => act(() => workspaces.remove(w.id))}
            />
          ))}
        </ul>
      )}
    </main>
  );
}

interface ItemProps {
  workspace: WorkspaceSummary;
  status: WorkspaceStatus | undefined;
  onOpen: () => void;
  onRename: (name: string) => Promise<unknown>;
  onDelete: () => Promise<unknown>;
}

function WorkspaceItem({ workspace, status, onOpen, onRename, onDelete }: ItemProps) {
  const [mode, setMode] = useState<"view" | "rename" | "confirm-delete">("view");
  const [draft, setDraft] = useState(workspace.name);

  return (
    <li className="workspace-item" data-testid="workspace-item" data-workspace-id={workspace.id}>
      {mode === "rename" ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void onRename(draft).then(() => setMode("view"));
          }}
        >
          <input aria-label="Workspace name" value={draft} maxLength={100} onChange={(e) => setDraft(e.target.value)} />
          <button type="submit">Save</button>
          <button type="button" onClick={() => setMode("view")}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <button type="button" className="workspace-open" onClick={onOpen}>
            {workspace.name}
          </button>
          {workspace.shared && (
            <span
              className="shared-mark"
              data-testid="shared-mark"
              title={`Shared with you by ${workspace.shared.owner}`}
            >
              Shared · {workspace.shared.role}
            </span>
          )}
          {status && <StatusBadge state={status.state} />}
          <span className="workspace-meta" data-testid="workspace-last-saved">
            {status?.lastSavedAt ? `saved ${ago(Date.now() - Date.parse(status.lastSavedAt))}` : "not saved yet"} ·
            created {new Date(workspace.createdAt).toLocaleString()}
          </span>
          {mode === "confirm-delete" ? (
            <span className="confirm" role="alert">
              Delete “{workspace.name}” with all its files?{" "}
              <button type="button" className="danger" onClick={() => void onDelete()}>
                Delete for good
              </button>
              <button type="button" onClick={() => setMode("view")}>
                Keep
              </button>
            </span>
          ) : workspace.shared ? null : (
            <span className="workspace-actions">
              <button type="button" onClick={() => setMode("rename")}>
                Rename
              </button>
              <button type="button" onClick={() => setMode("confirm-delete")}>
                Delete
              </button>
            </span>
          )}
        </>
      )}
    </li>
  );
}
