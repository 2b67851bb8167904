import { useEffect, useMemo } from "react";
import type { GitApi } from "../api/git";
import type { FileEvents } from "../files/file-events";
import { type GitModel, GitModel as Model, type OpenFiles } from "./git-model";

/**
 * The workspace's source control state, fed by the same change stream as
 * the tree and the editor (file changes and changes in .git), read from the
 * start so the tree can mark changed files before the panel is opened.
 */
export function useWorkspaceGit(api: GitApi, events: FileEvents, editor: OpenFiles): GitModel {
  const model = useMemo(() => new Model(api, editor), [api, editor]);
  useEffect(() => {
    void model.load();
    return events.subscribe(model.onFileEvent);
  }, [model, events]);
  return model;
}
