/**
 * Who is in the workspace, from the presence room's awareness states (pure:
 * app/collab/presence.ts feeds it). One entry per person: their tabs are
 * merged (the files any of them has open, the terminals any shows, and the
 * file and line of the tab they last moved in). The server stamps `user` on
 * every state; the rest is what each page says, so it is read defensively
 * (a malformed field counts as absent, never breaks the page).
 */
import { z } from "zod";
import { MAX_AWARENESS_STATE_BYTES, MAX_PRESENCE_FILES, type PresenceState } from "../../protocol/collab";

export interface Person {
  id: string;
  name: string;
  /** The person's colour (the same as their cursor's). */
  color: string;
  initials: string;
  /** The files open in any of their tabs. */
  files: string[];
  /** The file shown by the tab they last moved in, and its first visible line. */
  active?: string;
  line?: number;
  /** The terminals their tabs show. */
  terminals: string[];
}

/** A page's own state; `movedAt` (ms) says which of a person's tabs they last moved in. */
export type PublishedState = Omit<PresenceState, "user"> & { movedAt?: number };

/**
 * Whether `change` says nothing `state` does not already say. Publishing it
 * again would go to the server and back to every page in the room for
 * nothing (the editor's every dirty mark and save asked to); the awareness
 * protocol renews a state that stays the same by itself.
 */
export function changesNothing(state: PublishedState, change: Partial<PublishedState>): boolean {
  return Object.entries(change).every(([key, value]) => {
    const now = state[key as keyof PublishedState];
    if (Array.isArray(value) && Array.isArray(now)) {
      return value.length === now.length && value.every((item, i) => item === now[i]);
    }
    return value === now;
  });
}

/** Enough for any real page; a state that lists more is cut, not trusted with the page's memory. */
const MAX_FILES = MAX_PRESENCE_FILES;
const MAX_PATH = 4096;

const path = z.string().min(1).max(MAX_PATH);
const stateSchema = z.object({
  user: z.object({ id: z.string().min(1), name: z.string(), color: z.string() }),
  files: z
    .array(z.unknown())
    .catch([])
    .transform((files) => files.filter((file): file is string => path.safeParse(file).success).slice(0, MAX_FILES)),
  active: path.optional().catch(undefined),
  line: z.number().int().min(1).optional().catch(undefined),
  terminal: z.string().min(1).max(200).optional().catch(undefined),
  movedAt: z.number().finite().optional().catch(undefined),
});

type ReadState = z.infer<typeof stateSchema>;

/**
 * The people in the room but you: `states` is the awareness's (client id ->
 * state); your own tab is `me.clientId`, and your other tabs are the states
 * of `me.userId`. Sorted by name.
 */
export function peopleIn(states: ReadonlyMap<number, unknown>, me: { clientId: number; userId?: string }): Person[] {
  const byUser = new Map<string, ReadState[]>();
  for (const [clientId, raw] of states) {
    if (clientId === me.clientId) continue;
    const parsed = stateSchema.safeParse(raw);
    if (!parsed.success) continue;
    const state = parsed.data;
    if (state.user.id === me.userId) continue;
    const tabs = byUser.get(state.user.id);
    if (tabs) tabs.push(state);
    else byUser.set(state.user.id, [state]);
  }
  return [...byUser.values()].map(merge).sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/** One person's tabs as one entry. */
function merge(tabs: ReadState[]): Person {
  const first = tabs[0] as ReadState;
  // The tab they last moved in (one without a time counts as the oldest).
  const latest = tabs.reduce((best, tab) => ((tab.movedAt ?? 0) > (best.movedAt ?? 0) ? tab : best), first);
  const files = new Set<string>();
  const terminals = new Set<string>();
  for (const tab of tabs) {
    for (const file of tab.files) files.add(file);
    if (tab.active) files.add(tab.active);
    if (tab.terminal) terminals.add(tab.terminal);
  }
  return {
    id: first.user.id,
    name: first.user.name,
    color: first.user.color,
    initials: initialsOf(first.user.name),
    files: [...files],
    active: latest.active,
    line: latest.active ? latest.line : undefined,
    terminals: [...terminals],
  };
}

/** "Grace Hopper" -> "GH", "ada@example.com" -> "A", "owner" -> "O". */
export function initialsOf(name: string): string {
  const local = name.includes("@") ? name.slice(0, name.indexOf("@")) : name;
  const words = local.split(/[\s._-]+/).filter((word) => word.length > 0);
  const first = words[0];
  if (!first) return "?";
  const letter = (word: string) => (Array.from(word)[0] ?? "").toLocaleUpperCase();
  const last = words.length > 1 ? words.at(-1) : undefined;
  return last ? letter(first) + letter(last) : letter(first);
}

/** The people at each of several things (files, terminals), by its name. */
export type PeopleAt = ReadonlyMap<string, readonly Person[]>;

/** Who has each file open. */
export function filesOpenBy(people: readonly Person[]): Map<string, Person[]> {
  return groupBy(people, (person) => person.files);
}

/** Who has a file open somewhere under each folder (a collapsed folder's mark): `a/b/c.ts` counts for `a` and `a/b`. */
export function foldersOpenBy(people: readonly Person[]): Map<string, Person[]> {
  return groupBy(people, (person) => {
    const folders = new Set<string>();
    for (const file of person.files) {
      for (let at = file.indexOf("/"); at > 0; at = file.indexOf("/", at + 1)) folders.add(file.slice(0, at));
    }
    return [...folders];
  });
}

/** Who shows each terminal. */
export function terminalWatchers(people: readonly Person[]): Map<string, Person[]> {
  return groupBy(people, (person) => person.terminals);
}

/** Whether two groupings hold the same people (by id, name, colour) at the same keys. */
export function sameGroups(a: PeopleAt, b: PeopleAt): boolean {
  if (a.size !== b.size) return false;
  for (const [key, group] of a) {
    const other = b.get(key);
    if (!other || other.length !== group.length) return false;
    for (let i = 0; i < group.length; i++) {
      const x = group[i] as Person;
      const y = other[i] as Person;
      if (x.id !== y.id || x.name !== y.name || x.color !== y.color) return false;
    }
  }
  return true;
}

function groupBy(people: readonly Person[], keys: (person: Person) => readonly string[]): Map<string, Person[]> {
  const groups = new Map<string, Person[]>();
  for (const person of people) {
    for (const key of keys(person)) {
      const group = groups.get(key);
      if (group) group.push(person);
      else groups.set(key, [person]);
    }
  }
  return groups;
}

/** "Ada", "Ada and Grace", "Ada, Grace and Linus". */
export function namesOf(people: readonly Pick<Person, "name">[]): string {
  const names = people.map((person) => person.name);
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * The open files as published: as many as the server takes in one state
 * (MAX_AWARENESS_STATE_BYTES, half of it for the paths) and others read
 * (MAX_PRESENCE_FILES), in tab order.
 */
export function publishedFiles(files: readonly string[]): string[] {
  const budget = MAX_AWARENESS_STATE_BYTES / 2;
  const published: string[] = [];
  let used = 0;
  for (const file of files) {
    used += JSON.stringify(file).length + 1;
    if (used > budget || published.length === MAX_PRESENCE_FILES) break;
    published.push(file);
  }
  return published;
}
