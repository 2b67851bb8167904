import { useCallback, useEffect, useState } from "react";
import type { ContainerState, WorkspaceStatus } from "../../protocol/workspace";
import { ApiRequestError, apiJson } from "../api";

const REFRESH_MS = 30_000;

/** What the page shows about a workspace's container. */
export interface StatusView {
  state: ContainerState;
  kernel?: string;
  error?: { code: string; message: string };
}

/**
 * Asks the Worker for the workspace's status, which also starts its container.
 * Shows `starting` until the first answer, then refreshes in the background.
 */
export function useWorkspaceStatus(workspaceId: string) {
  const [status, setStatus] = useState<StatusView>({ state: "starting" });

  const refresh = useCallback(async () => {
    try {
      setStatus(await apiJson<WorkspaceStatus>(`/api/workspaces/${workspaceId}/status`));
    } catch (error) {
      const err = error instanceof ApiRequestError ? error : new ApiRequestError(0, "UNKNOWN", String(error));
      setStatus({ state: "failed", error: { code: err.code, message: err.message } });
    }
  }, [workspaceId]);

  useEffect(() => {
    setStatus({ state: "starting" });
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  return { status, refresh };
}
