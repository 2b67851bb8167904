import { WebsocketProvider } from "y-websocket";
import * as Y from "yjs";
import { keepAwarenessAcrossReconnects } from "./awareness-reconnect";
import {
  changesNothing,
  filesOpenBy,
  foldersOpenBy,
  type PeopleAt,
  type Person,
  type PublishedState,
  peopleIn,
  publishedFiles,
  sameGroups,
  terminalWatchers,
} from "./presence-model";
import { collabUrl } from "./shared-file";

export interface PresenceSnapshot {
  /** Everyone else in the workspace, one entry per person. */
  people: readonly Person[];
  /** Who has each file open, and a file under each folder; who shows each terminal. Each map stays the same
   * object while what it says does not change (someone scrolling changes none of them), so what shows them
   * renders again only when they change. */
  files: PeopleAt;
  folders: PeopleAt;
  terminals: PeopleAt;
  /** The person this page follows. */
  following?: Person;
  /** Why following ended (shown until dismissed or the next follow). */
  stopped?: string;
}

const EMPTY: PresenceSnapshot = { people: [], files: new Map(), folders: new Map(), terminals: new Map() };

/**
 * One workspace page in the presence room (GET /ws/workspaces/{id}/collab/presence,
 * awareness only): publishes what this page shows (its open files, the active
 * one and its first visible line, the terminal it shows) and keeps who else
 * is here. It also holds whom this page follows; app/ide/usePresenceEditor.ts
 * moves the editor after them. React reads it through
 * `useSyncExternalStore(room.subscribe, room.getSnapshot)`.
 */
/** The rooms of this page (one at a time), for the browser tests' hooks. */
export const openRooms = new Set<PresenceRoom>();

export class PresenceRoom {
  private readonly doc = new Y.Doc();
  private readonly provider: WebsocketProvider;
  private local: PublishedState = { files: [], active: null, terminal: null };
  /** The first visible line of a file, as the editor last said. */
  private shown: { path: string; line: number } | undefined;
  private followingId: string | undefined;
  private stopped: string | undefined;
  private snapshot: PresenceSnapshot = EMPTY;
  private readonly listeners = new Set<() => void>();

  constructor(
    workspaceId: string,
    /** The signed-in user: their other tabs are not "someone else". */
    private readonly userId: string | undefined,
  ) {
    this.provider = new WebsocketProvider(collabUrl(workspaceId), "presence", this.doc, {
      // Every page goes through the server (it stamps who each state is from).
      disableBc: true,
      maxBackoffTime: 10_000,
    });
    keepAwarenessAcrossReconnects(this.provider);
    this.provider.awareness.setLocalState(this.local);
    this.provider.awareness.on("change", this.changed);
    // Back in step after a reconnect: everyone's states have arrived (the
    // server sends them before its sync answer), so someone followed who
    // left meanwhile is found gone now.
    this.provider.on("sync", (synced: boolean) => {
      if (synced) this.refresh();
    });
    openRooms.add(this);
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): PresenceSnapshot => this.snapshot;

  // --- what this page shows ---

  /** The editor's open files and the one it shows. */
  setFiles(files: readonly string[], active: string | undefined): void {
    const moved = (active ?? null) !== this.local.active;
    this.publish({ files: publishedFiles(files), active: active ?? null, line: this.lineOf(active) }, moved);
  }

  /** The first line the editor shows of `path` (its view scrolled, or showed it). */
  setLine(path: string, line: number): void {
    this.shown = { path, line };
    if (path === this.local.active && line !== this.local.line) this.publish({ line }, true);
  }

  /** The terminal this page shows. */
  readonly setTerminal = (name: string | undefined): void => {
    if ((name ?? null) !== this.local.terminal) this.publish({ terminal: name ?? null }, false);
  };

  // --- following someone ---

  follow(personId: string): void {
    this.followingId = personId;
    this.stopped = undefined;
    this.refresh();
  }

  /** Stops following; `why` is shown (e.g. "You moved"). */
  stopFollowing(why?: string): void {
    const person = this.snapshot.following;
    if (!person) return;
    this.followingId = undefined;
    this.stopped = why ? `${why}: stopped following ${person.name}.` : undefined;
    this.refresh();
  }

  dismissStopped(): void {
    this.stopped = undefined;
    this.refresh();
  }

  /** For the browser tests: drops this page's socket; resolves once the provider reconnected and synced. */
  dropSocket(): Promise<void> {
    return new Promise((resolve) => {
      const synced = (isSynced: boolean) => {
        if (!isSynced) return;
        this.provider.off("sync", synced);
        resolve();
      };
      this.provider.on("sync", synced);
      this.provider.ws?.close();
    });
  }

  destroy(): void {
    openRooms.delete(this);
    this.provider.awareness.off("change", this.changed);
    this.provider.destroy();
    this.doc.destroy();
    this.listeners.clear();
  }

  // --- inside ---

  private lineOf(path: string | undefined): number | undefined {
    return path !== undefined && this.shown?.path === path ? this.shown.line : undefined;
  }

  private publish(change: Partial<PublishedState>, moved: boolean): void {
    if (!moved && changesNothing(this.local, change)) return;
    this.local = { ...this.local, ...change, ...(moved ? { movedAt: Date.now() } : {}) };
    this.provider.awareness.setLocalState(this.local);
  }

  /** Someone's state changed: this page's own changes say nothing new about the others. */
  private readonly changed = ({ added, updated, removed }: Record<"added" | "updated" | "removed", number[]>) => {
    const own = this.provider.awareness.clientID;
    if ([...added, ...updated, ...removed].some((id) => id !== own)) this.refresh();
  };

  private readonly refresh = (): void => {
    const { awareness } = this.provider;
    const people = peopleIn(awareness.getStates(), { clientId: awareness.clientID, userId: this.userId });
    let following = people.find((person) => person.id === this.followingId);
    if (this.followingId !== undefined && !following && !this.provider.wsconnected) {
      // This page's own socket dropped (the provider forgets everyone until it
      // is back): following waits for the reconnect rather than ending.
      following = this.snapshot.following;
    } else if (this.followingId !== undefined && !following) {
      // They left (or lost access): following ends.
      const name = this.snapshot.following?.name;
      this.followingId = undefined;
      this.stopped = name ? `${name} left: stopped following.` : undefined;
      following = undefined;
    }
    const keep = (before: PeopleAt, after: PeopleAt) => (sameGroups(before, after) ? before : after);
    this.snapshot = {
      people,
      files: keep(this.snapshot.files, filesOpenBy(people)),
      folders: keep(this.snapshot.folders, foldersOpenBy(people)),
      terminals: keep(this.snapshot.terminals, terminalWatchers(people)),
      following,
      stopped: this.stopped,
    };
    for (const listener of this.listeners) listener();
  };
}
