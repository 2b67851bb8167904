/**
 * The terminals on the page, by name, and which one is active. Backs the test
 * hooks on `window.__cloudIde` (drop a socket, read the screen).
 */
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
  /** The workspace runs again: terminals waiting for it reconnect at once. */
  workspaceWoke() {
    for (const { connection } of entries.values()) connection.workspaceWoke();
  },
};

function pick(name?: string): Entry | undefined {
  return entries.get(name ?? active ?? "");
}

/** The visible lines of a terminal, as text. */
function screenText(name?: string): string {
  const terminal = pick(name)?.terminal;
  if (!terminal) return "";
  const buffer = terminal.buffer.active;
  const lines: string[] = [];
  for (let y = buffer.viewportY; y < buffer.viewportY + terminal.rows; y++) {
    lines.push(buffer.getLine(y)?.translateToString(true) ?? "");
  }
  return lines.join("\n");
}

declare global {
  interface Window {
    __cloudIde?: Record<string, unknown>;
  }
}

window.__cloudIde = {
  ...window.__cloudIde,
  dropTerminalSocket: (name?: string) => pick(name)?.connection.drop(),
  terminalText: screenText,
  terminalSize: (name?: string) => {
    const terminal = pick(name)?.terminal;
    return terminal ? { cols: terminal.cols, rows: terminal.rows } : undefined;
  },
};
