import { useEffect, useRef } from "react";
import { PeopleMark } from "../collab/PresenceAvatars";
import type { Person } from "../collab/presence-model";
import { codeLabel, MARK_TITLES } from "./change-marks";
import { type FileTreeModel, HEAVY, type Row, type TreeSnapshot } from "./file-tree-model";
import { INTERNAL_DRAG, type TreeDrop } from "./useTreeDrop";

export const ROW_HEIGHT = 22;

interface Props {
  row: Row;
  /** Offset from the top of the list (virtualized). */
  top: number;
  tree: TreeSnapshot;
  model: FileTreeModel;
  /** The editor's active file. */
  active: boolean;
  /** Source control's mark: M, A, D, U (untracked or conflicted)..., or "•" for a folder holding changes. */
  mark: string | undefined;
  /** The other people who have this file open (a collapsed folder: a file under it). */
  openBy?: readonly Person[];
  dropTarget: boolean;
  drop: TreeDrop;
  onCommit: (value: string) => void;
  onMenu: (x: number, y: number) => void;
}

/** One row of the tree: a file or folder, or the name being typed for a new one or a rename. */
export function FileTreeRow({
  row,
  top,
  tree,
  model,
  active,
  mark,
  openBy,
  dropTarget,
  drop,
  onCommit,
  onMenu,
}: Props) {
  const { editing, selected, expanded } = tree;
  const isNew = row.type === "new-file" || row.type === "new-folder";
  const isEditing = isNew || (editing?.kind === "rename" && editing.path === row.path);
  const isDir = row.type === "directory" || row.type === "new-folder";
  const open = expanded.has(row.path);
  const classes = ["file-tree-row"];
  if (selected === row.path) classes.push("selected");
  if (dropTarget) classes.push("drop-target");
  if (HEAVY.has(row.name)) classes.push("heavy");
  if (active) classes.push("active");
  if (mark)
    classes.push(`git-mark-${mark === "•" ? "folder" : mark === "?" ? "untracked" : mark === "U" ? "conflict" : mark}`);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the tree element handles keys for all rows (arrows, Enter, F2, Delete)
    <div
      role="treeitem"
      tabIndex={-1}
      aria-selected={selected === row.path}
      aria-expanded={isDir ? open : undefined}
      aria-level={row.depth + 1}
      data-path={row.path}
      data-type={row.type}
      className={classes.join(" ")}
      style={{ transform: `translateY(${top}px)`, height: ROW_HEIGHT, paddingLeft: 6 + row.depth * 14 }}
      draggable={!isEditing}
      onDragStart={(e) => {
        e.dataTransfer.setData(INTERNAL_DRAG, row.path);
        e.dataTransfer.effectAllowed = "move";
      }}
      onDragOver={(e) => {
        e.stopPropagation();
        drop.onDragOver(e, row);
      }}
      onDrop={(e) => void drop.onDrop(e, row)}
      onClick={() => model.activate(row)}
      onContextMenu={(e) => {
        e.preventDefault();
        e.stopPropagation();
        model.select(row.path);
        onMenu(e.clientX, e.clientY);
      }}
    >
      <span className="file-tree-twisty">{isDir ? (open ? "▾" : "▸") : ""}</span>
      <span className={`file-tree-icon ${isDir ? "dir" : row.type === "symlink" ? "link" : "file"}`} />
      {isEditing ? (
        <NameInput initial={isNew ? "" : row.name} onDone={onCommit} onCancel={() => model.cancelEdit()} />
      ) : (
        <span className="file-tree-name">{row.name}</span>
      )}
      {tree.folders.get(row.path)?.loading && <span className="file-tree-loading">…</span>}
      {openBy && openBy.length > 0 && (
        <PeopleMark
          people={openBy}
          label={(names) => (isDir ? `Open inside by ${names}` : `Open by ${names}`)}
          testId="tree-presence"
        />
      )}
      {mark && (
        <span className="file-tree-git" data-testid="tree-git-mark" title={MARK_TITLES[mark] ?? "Changed"}>
          {codeLabel(mark)}
        </span>
      )}
    </div>
  );
}

function NameInput({
  initial,
  onDone,
  onCancel,
}: {
  initial: string;
  onDone: (value: string) => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLInputElement>(null);
  const settled = useRef(false);
  useEffect(() => {
    const input = ref.current;
    if (!input) return;
    input.focus();
    const dot = initial.lastIndexOf(".");
    input.setSelectionRange(0, dot > 0 ? dot : initial.length);
  }, [initial]);
  const finish = (value: string | undefined) => {
    if (settled.current) return;
    settled.current = true;
    if (value === undefined) onCancel();
    else onDone(value);
  };
  return (
    <input
      ref={ref}
      className="file-tree-input"
      data-testid="tree-name-input"
      aria-label={initial ? `New name for ${initial}` : "Name"}
      defaultValue={initial}
      onClick={(e) => e.stopPropagation()}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === "Enter") finish(e.currentTarget.value);
        if (e.key === "Escape") finish(undefined);
      }}
      onBlur={(e) => finish(e.currentTarget.value || undefined)}
    />
  );
}
