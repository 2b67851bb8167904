import { useEffect, useMemo, useSyncExternalStore } from "react";
import type { FilesApi } from "../api/files";
import { CollabApi } from "../collab/collab-api";
import { EditorModel } from "../editor/editor-model";
import { useFileEvents } from "../files/file-events";
import { FileTreeModel } from "../files/file-tree-model";
import { registerUnsaved } from "../unsaved-work";

/**
 * The file tree and the editor buffers of one workspace, fed by one change
 * stream; the tree tells the editor what it opened, renamed and deleted.
 */
export function useWorkspaceFiles(files: FilesApi) {
  const events = useFileEvents(files);
  // Text files are shared documents (app/collab/): everyone with one open edits the same text.
  const editor = useMemo(() => new EditorModel(files, new CollabApi(files.workspaceId)), [files]);
  const tree = useMemo(
    () =>
      new FileTreeModel(files, {
        open: (path) => void editor.open(path),
        renamed: (from, to) => editor.renamed(from, to),
        deleted: (path) => editor.deleted(path),
      }),
    [files, editor],
  );
  useEffect(() => {
    const unsubscribe = [events.subscribe(tree.onFileEvent), events.subscribe(editor.onFileEvent)];
    return () => {
      for (const stop of unsubscribe) stop();
    };
  }, [events, tree, editor]);
  // The page leaves the workspace: its shared documents' sockets close.
  useEffect(() => () => editor.leaveShared(), [editor]);
  // Leaving the page with unsaved work asks first (app/unsaved-work.ts).
  useEffect(() => registerUnsaved("editor", () => editor.isDirty()), [editor]);
  // Only the active path: the whole snapshot changes with every keystroke and save mark, and the layout that
  // uses this renders every pane (the editor pane follows the buffers itself).
  const activePath = useSyncExternalStore(editor.subscribe, () => editor.getSnapshot().active);
  return { files, tree, editor, events, activePath };
}
