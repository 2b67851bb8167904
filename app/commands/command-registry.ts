/**
 * Every action a person can take by name or shortcut: registered by the parts
 * of the page that carry them out, listed by the command palette, run by
 * their keys from anywhere on the page.
 *
 * Keys use CodeMirror's notation: modifiers `Mod` (Cmd on macOS, Ctrl
 * elsewhere), `Ctrl`, `Alt`, `Shift`, `Meta`, then the key's name
 * (`KeyboardEvent.key`, case-insensitive): "Mod-s", "Mod-Shift-Enter", "F2".
 */
export interface Command {
  /** Stable, dotted: "editor.save". */
  id: string;
  /** What the palette shows: "Save file". */
  title: string;
  keys?: readonly string[];
  /** Runs even while the terminal has the keyboard (xterm.js lets these keys through). */
  global?: boolean;
  /** Whether it can run now (the palette greys it out otherwise). */
  enabled?: () => boolean;
  run: () => void | Promise<void>;
}

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);

interface Chord {
  key: string;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
  meta: boolean;
}

export function parseKeys(keys: string): Chord {
  const parts = keys.split(/-(?!$)/);
  const key = (parts.pop() ?? "").toLowerCase();
  const chord: Chord = { key, ctrl: false, alt: false, shift: false, meta: false };
  for (const part of parts) {
    const modifier = part.toLowerCase();
    if (modifier === "mod") chord[isMac ? "meta" : "ctrl"] = true;
    else if (modifier === "ctrl" || modifier === "alt" || modifier === "shift" || modifier === "meta") {
      chord[modifier] = true;
    } else throw new Error(`unknown modifier ${part} in ${keys}`);
  }
  return chord;
}

export function matches(
  keys: string,
  event: Pick<KeyboardEvent, "key" | "ctrlKey" | "altKey" | "shiftKey" | "metaKey">,
) {
  const chord = parseKeys(keys);
  return (
    chord.key === event.key.toLowerCase() &&
    chord.ctrl === event.ctrlKey &&
    chord.alt === event.altKey &&
    chord.shift === event.shiftKey &&
    chord.meta === event.metaKey
  );
}

/** "Mod-Shift-Enter" as the person's keyboard says it: "Ctrl+Shift+Enter" (⌘⇧Enter on macOS). */
export function formatKeys(keys: string): string {
  const parts = keys.split(/-(?!$)/);
  const key = parts.pop() ?? "";
  const names: Record<string, string> = isMac
    ? { mod: "⌘", ctrl: "⌃", alt: "⌥", shift: "⇧", meta: "⌘" }
    : { mod: "Ctrl", ctrl: "Ctrl", alt: "Alt", shift: "Shift", meta: "Meta" };
  const shown = [...parts.map((p) => names[p.toLowerCase()] ?? p), key.length === 1 ? key.toUpperCase() : key];
  return shown.join(isMac ? "" : "+");
}

export class CommandRegistry {
  private readonly commands = new Map<string, Command>();
  private snapshot: readonly Command[] = [];
  private readonly listeners = new Set<() => void>();

  /** Adds (or replaces) a command; returns a function that removes it. */
  register(command: Command): () => void {
    this.commands.set(command.id, command);
    this.changed();
    return () => {
      if (this.commands.get(command.id) === command) {
        this.commands.delete(command.id);
        this.changed();
      }
    };
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The commands, by title (for the palette). */
  readonly getSnapshot = (): readonly Command[] => this.snapshot;

  get(id: string): Command | undefined {
    return this.commands.get(id);
  }

  /** Runs a command by id when it exists and is enabled; returns whether it ran. */
  run(id: string): boolean {
    const command = this.commands.get(id);
    if (!command || command.enabled?.() === false) return false;
    void command.run();
    return true;
  }

  /** The command these keys run, if any (`globalOnly`: only those that pass through the terminal). */
  forEvent(event: KeyboardEvent, { globalOnly = false } = {}): Command | undefined {
    for (const command of this.commands.values()) {
      if (globalOnly && !command.global) continue;
      if (command.keys?.some((keys) => matches(keys, event))) return command;
    }
    return undefined;
  }

  /** The page-wide key handler: runs the command of a key nobody else handled. */
  readonly onKeyDown = (event: KeyboardEvent): void => {
    if (event.defaultPrevented) return;
    const command = this.forEvent(event);
    if (!command || command.enabled?.() === false) return;
    event.preventDefault();
    void command.run();
  };

  private changed(): void {
    this.snapshot = [...this.commands.values()].sort((a, b) => a.title.localeCompare(b.title));
    for (const listener of this.listeners) listener();
  }
}
