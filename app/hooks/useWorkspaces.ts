import { useCallback, useEffect, useState } from "react";
import type { WorkspaceSummary, WorkspaceTemplate } from "../../protocol/workspaces";
import { apiJson } from "../api";

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});

/** The signed-in user's workspaces and the actions on them. */
export function useWorkspaces() {
  const [workspaces, setWorkspaces] = useState<WorkspaceSummary[] | undefined>();
  const [error, setError] = useState<string | undefined>();

  const refresh = useCallback(async () => {
    try {
      setWorkspaces(await apiJson<WorkspaceSummary[]>("/api/workspaces"));
      setError(undefined);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const create = useCallback(
    async (name: string, template: WorkspaceTemplate = "vite-react") => {
      const created = await apiJson<WorkspaceSummary>("/api/workspaces", json("POST", { name, template }));
      await refresh();
      return created;
    },
    [refresh],
  );

  const rename = useCallback(
    async (id: string, name: string) => {
      await apiJson<WorkspaceSummary>(`/api/workspaces/${id}`, json("PATCH", { name }));
      await refresh();
    },
    [refresh],
  );

  const remove = useCallback(
    async (id: string) => {
      await apiJson<void>(`/api/workspaces/${id}`, { method: "DELETE" });
      await refresh();
    },
    [refresh],
  );

  return { workspaces, error, refresh, create, rename, remove };
}
