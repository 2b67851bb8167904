import type { KeyboardEvent } from "react";
import type { Action } from "../hooks/useAction";
import type { FileTreeModel, TreeSnapshot } from "./file-tree-model";
import { parentOf } from "./paths";

/** The tree's keys: arrows, Home/End, Enter (open), F2 (rename), Delete. */
export function useTreeKeys(model: FileTreeModel, tree: TreeSnapshot, run: Action["run"]) {
  return (event: KeyboardEvent) => {
    const { rows, selected, editing, expanded } = tree;
    if (editing) return;
    const index = rows.findIndex((r) => r.path === selected);
    const row = rows[index];
    const select = (i: number) => model.select(rows[Math.max(0, Math.min(rows.length - 1, i))]?.path ?? selected);
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
          if (!expanded.has(row.path)) model.toggle(row.path, true);
          else select(index + 1);
        }
        break;
      case "ArrowLeft":
        if (row?.type === "directory" && expanded.has(row.path)) model.toggle(row.path, false);
        else if (row && parentOf(row.path) !== ".") model.select(parentOf(row.path));
        break;
      case "Enter":
        if (row) model.activate(row);
        break;
      case "F2":
        if (row) model.startRename(row.path);
        break;
      case "Delete":
        if (row) void run(() => model.remove(row.path, row.type));
        break;
      default:
        return;
    }
    event.preventDefault();
  };
}
