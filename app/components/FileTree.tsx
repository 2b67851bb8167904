import { useVirtualizer } from "@tanstack/react-virtual";
import { type DragEvent, type KeyboardEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { FileEntry } from "../../protocol/files";
import { collectDrop, type DroppedFile } from "../files/dropped-files";
import type { FileEvents } from "../files/file-events";
import { type FilesApi, joinPath, nameOf, parentOf } from "../files/files-api";
import "./FileTree.css";

const ROW_HEIGHT = 22;
/** Folders that are never opened for the user: huge and machine-made. */
const HEAVY = new Set(["node_modules", ".git"]);
const INTERNAL_DRAG = "application/x-cloud-ide-path";

interface Folder {
  entries?: FileEntry[];
  error?: string;
  loading?: boolean;
}

interface Row {
  path: string;
  name: string;
  type: FileEntry["type"] | "new-file" | "new-folder";
  depth: number;
  size: number;
}

type Editing = { kind: "rename"; path: string } | { kind: "new-file" | "new-folder"; parent: string };

interface Upload {
  total: number;
  sent: number;
  files: number;
  done: number;
  error?: string;
}

/**
 * The workspace's files: lazily listed folders, a virtualized list of rows
 * (@tanstack/react-virtual keeps a 10,000-entry folder smooth), live updates
 * from the watch stream, context menu, rename in place, drag to move, drop
 * from the desktop to upload, and keyboard navigation.
 */
export function FileTree({
  api,
  events,
  activePath,
  onOpen,
  onRenamed,
  onDeleted,
}: {
  api: FilesApi;
  events: FileEvents;
  activePath: string | undefined;
  onOpen: (path: string) => void;
  onRenamed: (from: string, to: string) => void;
  onDeleted: (path: string) => void;
}) {
  const [folders, setFolders] = useState<Map<string, Folder>>(() => new Map());
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set(["."]));
  const [showHidden, setShowHidden] = useState(() => localStorage.getItem("files.showHidden") === "1");
  const [selected, setSelected] = useState<string | undefined>();
  const [editing, setEditing] = useState<Editing | undefined>();
  const [menu, setMenu] = useState<{ x: number; y: number; path: string; type: string } | undefined>();
  const [dropTarget, setDropTarget] = useState<string | undefined>();
  const [upload, setUpload] = useState<Upload | undefined>();
  const [error, setError] = useState<string | undefined>();
  const foldersRef = useRef(folders);
  foldersRef.current = folders;
  const scrollRef = useRef<HTMLDivElement>(null);

  const load = useCallback(
    async (dir: string, { wake = true } = {}) => {
      setFolders((prev) => new Map(prev).set(dir, { ...prev.get(dir), loading: true }));
      try {
        const { entries } = await api.list(dir, { wake });
        setFolders((prev) => new Map(prev).set(dir, { entries }));
      } catch (cause) {
        // Asleep: keep showing what was there; the next "ready" re-reads it.
        if (!wake) {
          setFolders((prev) => new Map(prev).set(dir, { ...prev.get(dir), loading: false }));
          return;
        }
        setFolders((prev) => new Map(prev).set(dir, { error: (cause as Error).message }));
      }
    },
    [api],
  );

  useEffect(() => {
    void load(".");
  }, [load]);

  // Live changes: re-list each loaded folder that a change touched (batched per event).
  useEffect(() => {
    return events.subscribe((event) => {
      const loaded = foldersRef.current;
      const dirs = new Set<string>();
      if (event.kind === "resync") {
        for (const dir of loaded.keys()) dirs.add(dir);
      } else {
        for (const change of event.changes) {
          dirs.add(parentOf(change.path));
          if (change.from) dirs.add(parentOf(change.from));
          if (change.type === "deleted" || change.type === "moved") {
            const gone = change.type === "moved" ? (change.from as string) : change.path;
            setFolders((prev) => dropSubtree(prev, gone));
          }
        }
      }
      for (const dir of dirs) if (loaded.has(dir)) void load(dir, { wake: false });
    });
  }, [events, load]);

  const rows = useMemo(() => flatten(folders, expanded, showHidden, editing), [folders, expanded, showHidden, editing]);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });

  const toggle = useCallback(
    (path: string, open?: boolean) => {
      setExpanded((prev) => {
        const next = new Set(prev);
        const willOpen = open ?? !prev.has(path);
        if (willOpen) next.add(path);
        else next.delete(path);
        return next;
      });
      if ((open ?? !expanded.has(path)) && !foldersRef.current.get(path)?.entries) void load(path);
    },
    [expanded, load],
  );

  // Reveal the active file: open its folders and scroll to it.
  useEffect(() => {
    if (!activePath) return;
    setSelected(activePath);
    const ancestors: string[] = [];
    for (let dir = parentOf(activePath); dir !== "."; dir = parentOf(dir)) ancestors.unshift(dir);
    setExpanded((prev) => new Set([...prev, ...ancestors]));
    for (const dir of ancestors) if (!foldersRef.current.get(dir)?.entries) void load(dir);
  }, [activePath, load]);

  useEffect(() => {
    if (!selected) return;
    const index = rows.findIndex((r) => r.path === selected);
    if (index >= 0) virtualizer.scrollToIndex(index, { align: "auto" });
  }, [selected, rows, virtualizer]);

  const run = useCallback(async (action: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await action();
    } catch (cause) {
      setError((cause as Error).message);
    }
  }, []);

  const commitEdit = useCallback(
    async (value: string) => {
      const edit = editing;
      setEditing(undefined);
      const name = value.trim();
      if (!edit || !name) return;
      if (name.includes("/") && edit.kind === "rename") return setError("A name cannot contain '/'.");
      await run(async () => {
        if (edit.kind === "rename") {
          if (name === nameOf(edit.path)) return;
          const to = joinPath(parentOf(edit.path), name);
          await api.move(edit.path, to);
          onRenamed(edit.path, to);
          setSelected(to);
          await load(parentOf(edit.path));
        } else {
          const path = joinPath(edit.parent, name);
          if (edit.kind === "new-folder") await api.mkdir(path);
          else await api.save(path, "", null);
          await load(edit.parent);
          setSelected(path);
          if (edit.kind === "new-file") onOpen(path);
        }
      });
    },
    [api, editing, load, onOpen, onRenamed, run],
  );

  const remove = useCallback(
    async (path: string, type: string) => {
      const what = type === "directory" ? `the folder "${path}" and everything in it` : `"${path}"`;
      if (!window.confirm(`Delete ${what}? This cannot be undone.`)) return;
      await run(async () => {
        await api.remove(path, type === "directory");
        onDeleted(path);
        setFolders((prev) => dropSubtree(prev, path));
        await load(parentOf(path));
      });
    },
    [api, load, onDeleted, run],
  );

  const startCreate = useCallback(
    (kind: "new-file" | "new-folder", at: string | undefined) => {
      const row = rows.find((r) => r.path === at);
      const parent = !row ? "." : row.type === "directory" ? row.path : parentOf(row.path);
      if (parent !== ".") toggle(parent, true);
      setEditing({ kind, parent });
    },
    [rows, toggle],
  );

  const move = useCallback(
    async (from: string, toDir: string) => {
      const to = joinPath(toDir, nameOf(from));
      if (from === to || toDir === from || toDir.startsWith(`${from}/`)) return;
      await run(async () => {
        await api.move(from, to);
        onRenamed(from, to);
        await Promise.all([load(parentOf(from)), load(toDir)]);
        setSelected(to);
      });
    },
    [api, load, onRenamed, run],
  );

  const uploadFiles = useCallback(
    async (dir: string, files: DroppedFile[]) => {
      if (files.length === 0) return;
      const total = files.reduce((sum, f) => sum + f.file.size, 0);
      const state: Upload = { total, sent: 0, files: files.length, done: 0 };
      setUpload({ ...state });
      let base = 0;
      try {
        // One file at a time keeps memory flat and progress honest; chunks stream from disk.
        for (const { path, file } of files) {
          await api.upload(joinPath(dir, path), file, (sent) => setUpload({ ...state, sent: base + sent }));
          base += file.size;
          state.done += 1;
          setUpload({ ...state, sent: base });
        }
        setUpload(undefined);
      } catch (cause) {
        setUpload({ ...state, sent: base, error: (cause as Error).message });
      }
      await load(dir);
    },
    [api, load],
  );

  const onDragOver = (event: DragEvent, row: Row | undefined) => {
    const internal = event.dataTransfer.types.includes(INTERNAL_DRAG);
    if (!internal && !event.dataTransfer.types.includes("Files")) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = internal ? "move" : "copy";
    setDropTarget(row ? (row.type === "directory" ? row.path : parentOf(row.path)) : ".");
  };

  const onDrop = async (event: DragEvent, row: Row | undefined) => {
    event.preventDefault();
    event.stopPropagation();
    setDropTarget(undefined);
    const dir = row ? (row.type === "directory" ? row.path : parentOf(row.path)) : ".";
    const from = event.dataTransfer.getData(INTERNAL_DRAG);
    if (from) return move(from, dir);
    const files = await collectDrop(event.dataTransfer);
    await uploadFiles(dir, files);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (editing) return;
    const index = rows.findIndex((r) => r.path === selected);
    const row = rows[index];
    const select = (i: number) => {
      const target = rows[Math.max(0, Math.min(rows.length - 1, i))];
      if (target) setSelected(target.path);
    };
    switch (event.key) {
      case "ArrowDown":
        select(index + 1);
        break;
      case "ArrowUp":
        select(index <= 0 ? 0 : index - 1);
        break;
      case "Home":
        select(0);
        break;
      case "End":
        select(rows.length - 1);
        break;
      case "ArrowRight":
        if (row?.type === "directory") {
          if (!expanded.has(row.path)) toggle(row.path, true);
          else select(index + 1);
        }
        break;
      case "ArrowLeft":
        if (row?.type === "directory" && expanded.has(row.path)) toggle(row.path, false);
        else if (row && parentOf(row.path) !== ".") setSelected(parentOf(row.path));
        break;
      case "Enter":
        if (row?.type === "directory") toggle(row.path);
        else if (row) onOpen(row.path);
        break;
      case "F2":
        if (row) setEditing({ kind: "rename", path: row.path });
        break;
      case "Delete":
        if (row) void remove(row.path, row.type);
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  const root = folders.get(".");
  return (
    <div className="file-tree" data-testid="file-tree">
      <div className="file-tree-toolbar">
        <button
          type="button"
          title="New file"
          data-testid="tree-new-file"
          onClick={() => startCreate("new-file", selected)}
        >
          + File
        </button>
        <button
          type="button"
          title="New folder"
          data-testid="tree-new-folder"
          onClick={() => startCreate("new-folder", selected)}
        >
          + Folder
        </button>
        <label className="file-tree-hidden-toggle">
          <input
            type="checkbox"
            data-testid="tree-show-hidden"
            checked={showHidden}
            onChange={(e) => {
              setShowHidden(e.target.checked);
              localStorage.setItem("files.showHidden", e.target.checked ? "1" : "0");
            }}
          />
          Hidden
        </label>
      </div>
      {error && (
        <div className="file-tree-error" role="alert" data-testid="tree-error">
          {error}
          <button type="button" onClick={() => setError(undefined)} aria-label="Dismiss">
            ×
          </button>
        </div>
      )}
      {root?.error && <div className="file-tree-error">{root.error}</div>}
      <div
        ref={scrollRef}
        className={`file-tree-scroll${dropTarget === "." ? " drop-target" : ""}`}
        role="tree"
        aria-label="Workspace files"
        tabIndex={0}
        onKeyDown={onKeyDown}
        onDragOver={(e) => onDragOver(e, undefined)}
        onDragLeave={() => setDropTarget(undefined)}
        onDrop={(e) => void onDrop(e, undefined)}
        onContextMenu={(e) => {
          e.preventDefault();
          setMenu({ x: e.clientX, y: e.clientY, path: ".", type: "directory" });
        }}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index] as Row;
            const isEditing =
              row.type === "new-file" ||
              row.type === "new-folder" ||
              (editing?.kind === "rename" && editing.path === row.path);
            const isDir = row.type === "directory" || row.type === "new-folder";
            const open = expanded.has(row.path);
            const target = dropTarget !== undefined && dropTarget !== "." && dropTarget === row.path;
            return (
              // biome-ignore lint/a11y/useKeyWithClickEvents: the tree element handles keys for all rows (arrows, Enter, F2, Delete)
              <div
                key={row.path + row.type}
                role="treeitem"
                tabIndex={-1}
                aria-selected={selected === row.path}
                aria-expanded={isDir ? open : undefined}
                aria-level={row.depth + 1}
                data-path={row.path}
                data-type={row.type}
                className={`file-tree-row${selected === row.path ? " selected" : ""}${target ? " drop-target" : ""}${HEAVY.has(row.name) ? " heavy" : ""}${activePath === row.path ? " active" : ""}`}
                style={{
                  transform: `translateY(${item.start}px)`,
                  height: ROW_HEIGHT,
                  paddingLeft: 6 + row.depth * 14,
                }}
                draggable={!isEditing}
                onDragStart={(e) => {
                  e.dataTransfer.setData(INTERNAL_DRAG, row.path);
                  e.dataTransfer.effectAllowed = "move";
                }}
                onDragOver={(e) => {
                  e.stopPropagation();
                  onDragOver(e, row);
                }}
                onDrop={(e) => void onDrop(e, row)}
                onClick={() => {
                  setSelected(row.path);
                  if (row.type === "directory") toggle(row.path);
                  else if (row.type === "file" || row.type === "symlink") onOpen(row.path);
                }}
                onContextMenu={(e) => {
                  e.preventDefault();
                  e.stopPropagation();
                  setSelected(row.path);
                  setMenu({ x: e.clientX, y: e.clientY, path: row.path, type: row.type });
                }}
              >
                <span className="file-tree-twisty">{isDir ? (open ? "▾" : "▸") : ""}</span>
                <span className={`file-tree-icon ${isDir ? "dir" : row.type === "symlink" ? "link" : "file"}`} />
                {isEditing ? (
                  <NameInput
                    initial={row.type === "new-file" || row.type === "new-folder" ? "" : row.name}
                    onDone={(value) => void commitEdit(value)}
                    onCancel={() => setEditing(undefined)}
                  />
                ) : (
                  <span className="file-tree-name">{row.name}</span>
                )}
                {folders.get(row.path)?.loading && <span className="file-tree-loading">…</span>}
              </div>
            );
          })}
        </div>
        {root?.entries && rows.length === 0 && <p className="placeholder">/workspace is empty. Drop files here.</p>}
      </div>
      {upload && (
        <div className="file-tree-upload" data-testid="upload-progress" role="status">
          {upload.error ? (
            <>
              Upload failed: {upload.error}{" "}
              <button type="button" onClick={() => setUpload(undefined)}>
                OK
              </button>
            </>
          ) : (
            <>
              Uploading {upload.done}/{upload.files} · {Math.floor((upload.sent / Math.max(1, upload.total)) * 100)}%
              <progress value={upload.sent} max={Math.max(1, upload.total)} />
            </>
          )}
        </div>
      )}
      {menu && (
        <ContextMenu
          x={menu.x}
          y={menu.y}
          onClose={() => setMenu(undefined)}
          items={[
            { label: "New file", testId: "menu-new-file", run: () => startCreate("new-file", menu.path) },
            { label: "New folder", testId: "menu-new-folder", run: () => startCreate("new-folder", menu.path) },
            ...(menu.path === "."
              ? []
              : [
                  {
                    label: "Rename",
                    testId: "menu-rename",
                    run: () => setEditing({ kind: "rename", path: menu.path }),
                  },
                  { label: "Delete", testId: "menu-delete", run: () => void remove(menu.path, menu.type) },
                ]),
            {
              label: menu.type === "directory" ? "Download as .tar.gz" : "Download",
              testId: "menu-download",
              run: () => download(api.downloadUrl(menu.path)),
            },
          ]}
        />
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

function ContextMenu({
  x,
  y,
  items,
  onClose,
}: {
  x: number;
  y: number;
  items: { label: string; testId: string; run: () => void }[];
  onClose: () => void;
}) {
  useEffect(() => {
    const close = () => onClose();
    window.addEventListener("click", close);
    window.addEventListener("blur", close);
    return () => {
      window.removeEventListener("click", close);
      window.removeEventListener("blur", close);
    };
  }, [onClose]);
  return (
    <div className="context-menu" role="menu" style={{ left: x, top: y }} data-testid="tree-menu">
      {items.map((item) => (
        <button
          type="button"
          role="menuitem"
          key={item.label}
          data-testid={item.testId}
          onClick={(e) => {
            e.stopPropagation();
            onClose();
            item.run();
          }}
        >
          {item.label}
        </button>
      ))}
    </div>
  );
}

function download(url: string) {
  const a = document.createElement("a");
  a.href = url;
  a.download = "";
  document.body.append(a);
  a.click();
  a.remove();
}

/** Sorted visible rows: folders first, then names in natural order. */
function flatten(
  folders: Map<string, Folder>,
  expanded: Set<string>,
  showHidden: boolean,
  editing: Editing | undefined,
): Row[] {
  const rows: Row[] = [];
  const walk = (dir: string, depth: number) => {
    if (editing && editing.kind !== "rename" && editing.parent === dir) {
      rows.push({ path: joinPath(dir, "\0new"), name: "", type: editing.kind, depth, size: 0 });
    }
    const entries = folders.get(dir)?.entries;
    if (!entries) return;
    const visible = showHidden ? entries : entries.filter((e) => !e.name.startsWith("."));
    const sorted = [...visible].sort(
      (a, b) =>
        Number(b.type === "directory") - Number(a.type === "directory") ||
        a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: "base" }),
    );
    for (const entry of sorted) {
      const path = joinPath(dir, entry.name);
      rows.push({ path, name: entry.name, type: entry.type, depth, size: entry.size });
      if (entry.type === "directory" && expanded.has(path)) walk(path, depth + 1);
    }
  };
  walk(".", 0);
  return rows;
}

function dropSubtree(folders: Map<string, Folder>, path: string): Map<string, Folder> {
  let changed = false;
  const next = new Map(folders);
  for (const key of folders.keys()) {
    if (key === path || key.startsWith(`${path}/`)) {
      next.delete(key);
      changed = true;
    }
  }
  return changed ? next : folders;
}
