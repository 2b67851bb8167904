import { useEffect, useMemo, useSyncExternalStore } from "react";
import type { AgentsApi } from "../api/agents";
import { AgentsModel, type AgentsView } from "./agents-model";

/** The workspace's agents model; `watching` polls tokens and activity while true. */
export function useAgents(api: AgentsApi, watching: boolean): { model: AgentsModel; view: AgentsView } {
  const model = useMemo(() => new AgentsModel(api), [api]);
  const view = useSyncExternalStore(model.subscribe, model.getSnapshot);
  useEffect(() => (watching ? model.watch() : undefined), [model, watching]);
  return { model, view };
}
