import { type DragEvent, useState } from "react";
import type { Action } from "../hooks/useAction";
import { collectDrop } from "./dropped-files";
import type { FileTreeModel, Row } from "./file-tree-model";
import { parentOf } from "./paths";

/** The drag type of a row dragged within the tree (its path), told apart from files dragged in from outside. */
export const INTERNAL_DRAG = "application/x-cloud-ide-path";

export interface TreeDrop {
  /** The folder a drag hovers ("." for the root). */
  target: string | undefined;
  onDragOver: (event: DragEvent, row: Row | undefined) => void;
  onDragLeave: () => void;
  onDrop: (event: DragEvent, row: Row | undefined) => Promise<void>;
}

/** Drags in the tree: a row dropped on a folder moves there; files from the desktop upload there. */
export function useTreeDrop(model: FileTreeModel, run: Action["run"]): TreeDrop {
  const [target, setTarget] = useState<string>();
  const folderOf = (row: Row | undefined) => (row ? (row.type === "directory" ? row.path : parentOf(row.path)) : ".");
  return {
    target,
    onDragOver(event, row) {
      const internal = event.dataTransfer.types.includes(INTERNAL_DRAG);
      if (!internal && !event.dataTransfer.types.includes("Files")) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = internal ? "move" : "copy";
      setTarget(folderOf(row));
    },
    onDragLeave: () => setTarget(undefined),
    async onDrop(event, row) {
      event.preventDefault();
      event.stopPropagation();
      setTarget(undefined);
      const dir = folderOf(row);
      const from = event.dataTransfer.getData(INTERNAL_DRAG);
      if (from) {
        await run(() => model.move(from, dir));
        return;
      }
      const files = await collectDrop(event.dataTransfer);
      await model.uploadFiles(dir, files);
    },
  };
}
