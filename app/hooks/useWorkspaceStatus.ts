import { useCallback, useEffect, useRef, useState } from "react";
import type { ErrorCode } from "../../protocol/errors";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { ApiRequestError } from "../api/http";
import type { WorkspaceApi } from "../api/workspace";

/** Polling while nothing moves; a start or save is followed closely. */
const IDLE_POLL_MS = 10_000;
const BUSY_POLL_MS = 1_000;

/** What the page shows about a workspace's container. */
export type StatusView = Omit<WorkspaceStatus, "id">;

/**
 * Wakes the workspace when the page opens (`GET status` starts its
 * container), then follows its state with `?wake=0`, which does not count as
 * use: an open tab alone does not keep a workspace awake, an open terminal does.
 */
export function useWorkspaceStatus(api: WorkspaceApi) {
  const [status, setStatus] = useState<StatusView>({ state: "starting" });
  const current = useRef(status);
  current.current = status;
  /** While a wake call runs, polls only report its boot phases. */
  const waking = useRef(0);

  const fetchStatus = useCallback(
    async (wake: boolean): Promise<StatusView> => {
      try {
        return await api.status({ wake });
      } catch (error) {
        const err = error instanceof ApiRequestError ? error : new ApiRequestError(0, "UNKNOWN", String(error));
        return { ...current.current, state: "failed", error: { code: err.code as ErrorCode, message: err.message } };
      }
    },
    [api],
  );

  /** Wakes or starts the workspace and shows the result. */
  const refresh = useCallback(async () => {
    waking.current++;
    setStatus((previous) => ({ ...previous, state: "starting", phase: undefined, error: undefined }));
    try {
      setStatus(await fetchStatus(true));
    } finally {
      waking.current--;
    }
  }, [fetchStatus]);

  /** Reads the state without waking anything. */
  const poll = useCallback(async () => {
    const next = await fetchStatus(false);
    if (waking.current > 0 && next.state !== "starting") return;
    setStatus(next);
  }, [fetchStatus]);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const loop = async () => {
      await poll();
      if (stopped) return;
      const { state } = current.current;
      const busy = waking.current > 0 || state === "starting" || state === "saving";
      timer = setTimeout(loop, busy ? BUSY_POLL_MS : IDLE_POLL_MS);
    };
    void refresh();
    timer = setTimeout(loop, BUSY_POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [refresh, poll]);

  return { status, refresh, poll };
}
