import { useEffect, useState } from "react";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { workspaceApi } from "../api";

const POLL_MS = 15_000;

/** The state and last save of each listed workspace, read without waking any (`status?wake=0`). */
export function useWorkspaceStates(ids: readonly string[]): ReadonlyMap<string, WorkspaceStatus> {
  const [states, setStates] = useState<ReadonlyMap<string, WorkspaceStatus>>(new Map());
  const key = ids.join(",");
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the ids
  useEffect(() => {
    let stopped = false;
    const read = async () => {
      const found = await Promise.all(
        ids.map((id) =>
          workspaceApi(id)
            .status({ wake: false })
            .catch(() => undefined),
        ),
      );
      if (stopped) return;
      setStates(new Map(found.filter((s) => s !== undefined).map((s) => [s.id, s])));
    };
    void read();
    const timer = setInterval(read, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [key]);
  return states;
}
