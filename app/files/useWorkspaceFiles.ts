import { useMemo, useRef, useState } from "react";
import type { EditorHandle } from "../editor/EditorPane";
import { useFileEvents } from "./file-events";
import { FilesApi } from "./files-api";

/** Wires the file tree and the editor of one workspace together (shared API client and change stream). */
export function useWorkspaceFiles(workspaceId: string) {
  const api = useMemo(() => new FilesApi(workspaceId), [workspaceId]);
  const events = useFileEvents(workspaceId);
  const editorRef = useRef<EditorHandle>(null);
  const [activePath, setActivePath] = useState<string | undefined>();
  return {
    tree: {
      api,
      events,
      activePath,
      onOpen: (path: string) => editorRef.current?.open(path),
      onRenamed: (from: string, to: string) => editorRef.current?.renamed(from, to),
      onDeleted: (path: string) => editorRef.current?.deleted(path),
    },
    editor: { api, events, ref: editorRef, onActiveChange: setActivePath },
  };
}
