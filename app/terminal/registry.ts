/** The terminals on the page, by name, and which one is active. */
import type { Terminal } from "@xterm/xterm";
import type { TerminalConnection } from "./terminal-connection";

interface Entry {
  terminal: Terminal;
  connection: TerminalConnection;
}

const entries = new Map<string, Entry>();
let active: string | undefined;

export const terminalRegistry = {
  add(name: string, entry: Entry) {
    entries.set(name, entry);
  },
  remove(name: string, entry: Entry) {
    if (entries.get(name)?.connection === entry.connection) entries.delete(name);
  },
  setActive(name: string) {
    active = name;
  },
  /** A terminal by name, or the active one. */
  get(name?: string): Entry | undefined {
    return entries.get(name ?? active ?? "");
  },
  /** The workspace runs again: terminals waiting for it reconnect at once. */
  workspaceWoke() {
    for (const { connection } of entries.values()) connection.workspaceWoke();
  },
};
