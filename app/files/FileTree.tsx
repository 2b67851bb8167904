import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { PeopleAt } from "../collab/presence-model";
import { ContextMenu, download, type MenuItem } from "../components/ContextMenu";
import { useAction } from "../hooks/useAction";
import { FileTreeRow, ROW_HEIGHT } from "./FileTreeRow";
import type { FileTreeModel } from "./file-tree-model";
import { UploadStatus } from "./UploadStatus";
import { useTreeDrop } from "./useTreeDrop";
import { useTreeKeys } from "./useTreeKeys";
import "./FileTree.css";

type Menu = { x: number; y: number; path: string; type: string };

/**
 * The workspace's files (app/files/file-tree-model.ts holds them): a
 * virtualized list of rows (@tanstack/react-virtual keeps a 10,000-entry
 * folder smooth), context menu, rename in place, drag to move, drop from the
 * desktop to upload, and keyboard navigation.
 */
export function FileTree({
  model,
  activePath,
  marks,
  openBy,
  openUnder,
}: {
  model: FileTreeModel;
  activePath: string | undefined;
  /** Source control's mark of each changed file (and "•" on folders that hold one). */
  marks?: ReadonlyMap<string, string>;
  /** Who else has each file open, and a file under each folder (presence: a collapsed folder shows it). */
  openBy?: PeopleAt;
  openUnder?: PeopleAt;
}) {
  const tree = useSyncExternalStore(model.subscribe, model.getSnapshot);
  const { rows, selected } = tree;
  const [menu, setMenu] = useState<Menu>();
  const action = useAction();
  const drop = useTreeDrop(model, action.run);
  const onKeyDown = useTreeKeys(model, tree, action.run);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });

  useEffect(() => {
    void model.load(".");
  }, [model]);
  // Reveal the active file: open its folders and scroll to it.
  useEffect(() => {
    if (activePath) model.reveal(activePath);
  }, [activePath, model]);
  useEffect(() => {
    const index = selected ? rows.findIndex((r) => r.path === selected) : -1;
    if (index >= 0) virtualizer.scrollToIndex(index, { align: "auto" });
  }, [selected, rows, virtualizer]);

  const root = tree.folders.get(".");
  return (
    <div className="file-tree" data-testid="file-tree">
      <div className="file-tree-toolbar">
        <button type="button" data-testid="tree-new-file" onClick={() => model.startCreate("new-file", selected)}>
          + File
        </button>
        <button type="button" data-testid="tree-new-folder" onClick={() => model.startCreate("new-folder", selected)}>
          + Folder
        </button>
        <label className="file-tree-hidden-toggle">
          <input
            type="checkbox"
            data-testid="tree-show-hidden"
            checked={tree.showHidden}
            onChange={(e) => model.setShowHidden(e.target.checked)}
          />
          Hidden
        </label>
      </div>
      {action.error && (
        <div className="file-tree-error" role="alert" data-testid="tree-error">
          {action.error}
          <button type="button" onClick={action.dismiss} aria-label="Dismiss">
            ×
          </button>
        </div>
      )}
      {root?.error && <div className="file-tree-error">{root.error}</div>}
      <div
        ref={scrollRef}
        className={`file-tree-scroll${drop.target === "." ? " drop-target" : ""}`}
        role="tree"
        aria-label="Workspace files"
        tabIndex={0}
        onKeyDown={onKeyDown}
        onDragOver={(e) => drop.onDragOver(e, undefined)}
        onDragLeave={drop.onDragLeave}
        onDrop={(e) => void drop.onDrop(e, undefined)}
        onContextMenu={(e) => {
          e.preventDefault();
          setMenu({ x: e.clientX, y: e.clientY, path: ".", type: "directory" });
        }}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            if (!row) return null;
            return (
              <FileTreeRow
                key={row.path + row.type}
                row={row}
                top={item.start}
                tree={tree}
                model={model}
                active={activePath === row.path}
                mark={marks?.get(row.path)}
                openBy={
                  row.type === "directory"
                    ? tree.expanded.has(row.path)
                      ? undefined
                      : openUnder?.get(row.path)
                    : openBy?.get(row.path)
                }
                dropTarget={drop.target !== "." && drop.target === row.path}
                drop={drop}
                onCommit={(value) => void action.run(() => model.commitEdit(value))}
                onMenu={(x, y) => setMenu({ x, y, path: row.path, type: row.type })}
              />
            );
          })}
        </div>
        {root?.entries && rows.length === 0 && <p className="placeholder">/workspace is empty. Drop files here.</p>}
      </div>
      {tree.upload && <UploadStatus upload={tree.upload} onDismiss={() => model.dismissUpload()} />}
      {menu && <ContextMenu x={menu.x} y={menu.y} onClose={() => setMenu(undefined)} items={menuItems(menu)} />}
    </div>
  );

  function menuItems({ path, type }: Menu): MenuItem[] {
    return [
      { label: "New file", testId: "menu-new-file", run: () => model.startCreate("new-file", path) },
      { label: "New folder", testId: "menu-new-folder", run: () => model.startCreate("new-folder", path) },
      ...(path === "."
        ? []
        : [
            { label: "Rename", testId: "menu-rename", run: () => model.startRename(path) },
            { label: "Delete", testId: "menu-delete", run: () => void action.run(() => model.remove(path, type)) },
          ]),
      {
        label: type === "directory" ? "Download as .tar.gz" : "Download",
        testId: "menu-download",
        run: () => download(model.downloadUrl(path)),
      },
    ];
  }
}
