import { useSyncExternalStore } from "react";
import type { PresenceRoom, PresenceSnapshot } from "./presence";

const NOBODY: PresenceSnapshot = { people: [], files: new Map(), terminals: new Map() };
const noSubscription = () => () => {};

/** Who else is in the workspace (nobody until the room exists). */
export function usePresence(room: PresenceRoom | undefined): PresenceSnapshot {
  return useSyncExternalStore(room?.subscribe ?? noSubscription, room?.getSnapshot ?? (() => NOBODY));
}
