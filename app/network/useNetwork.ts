import { useEffect, useMemo, useSyncExternalStore } from "react";
import type { NetworkApi } from "../api/network";
import { NetworkModel, type NetworkView } from "./network-model";

/** The workspace's network model; `watching` polls the policy and the log while true. */
export function useNetwork(api: NetworkApi, watching: boolean): { model: NetworkModel; view: NetworkView } {
  const model = useMemo(() => new NetworkModel(api), [api]);
  const view = useSyncExternalStore(model.subscribe, model.getSnapshot);
  useEffect(() => (watching ? model.watch() : model.refresh()), [model, watching]);
  return { model, view };
}
