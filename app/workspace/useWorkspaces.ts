import { useCallback, useEffect, useState } from "react";
import type { WorkspaceSummary, WorkspaceTemplate } from "../../protocol/workspaces";
import { errorMessage } from "../api/http";
import { workspacesApi } from "../api/workspace";

/** The signed-in user's workspaces and the actions on them. */
export function useWorkspaces() {
  const [workspaces, setWorkspaces] = useState<WorkspaceSummary[] | undefined>();
  const [error, setError] = useState<string | undefined>();

  const refresh = useCallback(async () => {
    try {
      setWorkspaces(await workspacesApi.list());
      setError(undefined);
    } catch (err) {
      setError(errorMessage(err));
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const create = useCallback(
    async (name: string, template: WorkspaceTemplate = "vite-react", repository?: { url: string; branch?: string }) => {
      const created = await workspacesApi.create(name, template, repository);
      await refresh();
      return created;
    },
    [refresh],
  );

  const rename = useCallback(
    async (id: string, name: string) => {
      await workspacesApi.rename(id, name);
      await refresh();
    },
    [refresh],
  );

  const remove = useCallback(
    async (id: string) => {
      await workspacesApi.remove(id);
      await refresh();
    },
    [refresh],
  );

  return { workspaces, error, refresh, create, rename, remove };
}
