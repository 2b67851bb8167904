import { useSyncExternalStore } from "react";
import type { PresenceRoom, PresenceSnapshot } from "./presence";
import type { PeopleAt } from "./presence-model";

const NOBODY: PresenceSnapshot = { people: [], files: new Map(), folders: new Map(), terminals: new Map() };
const noSubscription = () => () => {};

/** Who else is in the workspace (nobody until the room exists). */
export function usePresence(room: PresenceRoom | undefined): PresenceSnapshot {
  return useSyncExternalStore(room?.subscribe ?? noSubscription, room?.getSnapshot ?? (() => NOBODY));
}

/** One part of it (files, folders, terminals): renders again only when that part changes, not as people scroll. */
export function usePresenceAt(room: PresenceRoom | undefined, part: "files" | "folders" | "terminals"): PeopleAt {
  return useSyncExternalStore(room?.subscribe ?? noSubscription, () => (room?.getSnapshot() ?? NOBODY)[part]);
}
