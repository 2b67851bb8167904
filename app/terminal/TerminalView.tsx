import { ClipboardAddon } from "@xterm/addon-clipboard";
import { FitAddon } from "@xterm/addon-fit";
import { SearchAddon } from "@xterm/addon-search";
import { WebLinksAddon } from "@xterm/addon-web-links";
import { WebglAddon } from "@xterm/addon-webgl";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { useContext, useEffect, useRef, useState } from "react";
import type { TerminalsApi } from "../api/workspace";
import { CommandsContext } from "../commands/useCommands";
import { TOUCH_SCREEN } from "../hooks/useMediaQuery";
import { terminalRegistry } from "./registry";
import { type ConnectionState, TerminalConnection } from "./terminal-connection";
import { attachTouch } from "./touch";

const THEME = {
  background: "#181825",
  foreground: "#cdd6f4",
  cursor: "#f5e0dc",
  selectionBackground: "#585b7066",
  black: "#45475a",
  red: "#f38ba8",
  green: "#a6e3a1",
  yellow: "#f9e2af",
  blue: "#89b4fa",
  magenta: "#f5c2e7",
  cyan: "#94e2d5",
  white: "#bac2de",
  brightBlack: "#585b70",
  brightRed: "#f38ba8",
  brightGreen: "#a6e3a1",
  brightYellow: "#f9e2af",
  brightBlue: "#89b4fa",
  brightMagenta: "#f5c2e7",
  brightCyan: "#94e2d5",
  brightWhite: "#a6adc8",
};

interface Props {
  terminals: TerminalsApi;
  name: string;
  active: boolean;
  searchOpen: boolean;
  onToggleSearch: () => void;
  onStateChange: (name: string, state: ConnectionState) => void;
}

/** One terminal: xterm.js with its addons, connected to tmux session `name`. */
export function TerminalView({ terminals, name, active, searchOpen, onToggleSearch, onStateChange }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const fit = useRef<FitAddon | undefined>(undefined);
  const search = useRef<SearchAddon | undefined>(undefined);
  const terminalRef = useRef<Terminal | undefined>(undefined);
  const commands = useContext(CommandsContext);
  const callbacks = useRef({ onToggleSearch, onStateChange, commands });
  callbacks.current = { onToggleSearch, onStateChange, commands };

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const terminal = new Terminal({
      // tmux has the mouse: Shift+drag (Option+drag on macOS) selects in the browser.
      macOptionClickForcesSelection: true,
      cursorBlink: true,
      fontFamily: 'ui-monospace, "Cascadia Mono", "DejaVu Sans Mono", Menlo, monospace',
      fontSize: 13,
      scrollback: 10_000,
      theme: THEME,
    });
    const fitAddon = new FitAddon();
    const searchAddon = new SearchAddon();
    terminal.loadAddon(fitAddon);
    terminal.loadAddon(searchAddon);
    terminal.loadAddon(new WebLinksAddon());
    // OSC 52 from tmux (copy mode, set-clipboard on) reaches the system clipboard.
    terminal.loadAddon(new ClipboardAddon());
    terminal.open(element);
    loadWebgl(terminal);

    terminal.attachCustomKeyEventHandler((event) => {
      // The page's global commands (maximize) pass through to the window.
      if (event.type === "keydown" && callbacks.current.commands?.forEvent(event, { globalOnly: true })) return false;
      if (event.type !== "keydown" || !event.ctrlKey || !event.shiftKey) return true;
      const key = event.key.toLowerCase();
      if (key === "c") {
        event.preventDefault();
        if (terminal.hasSelection()) void copy(terminal.getSelection());
        return false;
      }
      // Let the browser paste: xterm.js takes the paste event (no clipboard permission needed).
      if (key === "v") return false;
      return true;
    });
    // Copy on select, like most terminals; the keyboard copy works too.
    const selection = terminal.onSelectionChange(() => {
      if (terminal.hasSelection()) void copy(terminal.getSelection());
    });

    const connection = new TerminalConnection({
      terminals,
      name,
      onStateChange: (state) => callbacks.current.onStateChange(name, state),
    });
    terminal.loadAddon(connection);
    const entry = { terminal, connection };
    terminalRegistry.add(name, entry);

    // Fit first, then attach at the real size: the first connection waits
    // for the font and for the element to have its size.
    let fontReady = false;
    const fitAndStart = () => {
      if (!fontReady || element.clientWidth === 0 || element.clientHeight === 0) return;
      fitAddon.fit();
      connection.start();
    };
    void document.fonts.ready.then(() => {
      fontReady = true;
      fitAndStart();
    });
    const observer = new ResizeObserver(fitAndStart);
    observer.observe(element);

    const detachTouch = matchMedia(TOUCH_SCREEN).matches ? attachTouch(element, terminal) : () => {};

    fit.current = fitAddon;
    search.current = searchAddon;
    terminalRef.current = terminal;
    return () => {
      detachTouch();
      observer.disconnect();
      selection.dispose();
      terminalRegistry.remove(name, entry);
      terminal.dispose();
    };
  }, [terminals, name]);

  useEffect(() => {
    if (!active) return;
    terminalRegistry.setActive(name);
    const element = host.current;
    if (element && element.clientWidth > 0) fit.current?.fit();
    // Focus follows a terminal chosen here (its tab, a new one), but a terminal that becomes active by
    // itself (the list arriving after the page opened) never takes the keys of someone typing elsewhere.
    const focused = document.activeElement;
    const typingElsewhere =
      focused instanceof HTMLElement && focused !== document.body && !focused.closest(".terminal-panel");
    if (!typingElsewhere) terminalRef.current?.focus();
  }, [active, name]);

  return (
    <div className={active ? "terminal-view" : "terminal-view inactive"} data-terminal={name} aria-hidden={!active}>
      {active && searchOpen && search.current && (
        <SearchBox
          search={search.current}
          onClose={() => {
            search.current?.clearDecorations();
            callbacks.current.onToggleSearch();
            terminalRef.current?.focus();
          }}
        />
      )}
      <div className="terminal-host" ref={host} data-testid="terminal" />
    </div>
  );
}

function SearchBox({ search, onClose }: { search: SearchAddon; onClose: () => void }) {
  const [query, setQuery] = useState("");
  const [found, setFound] = useState<boolean | undefined>(undefined);
  const find = (backwards: boolean) => {
    if (!query) return;
    setFound(backwards ? search.findPrevious(query) : search.findNext(query));
  };
  return (
    <search className="terminal-search">
      <input
        // biome-ignore lint/a11y/noAutofocus: the box opens because the user wants to type in it
        autoFocus
        aria-label="Search the terminal"
        placeholder="Search scrollback"
        value={query}
        onChange={(event) => {
          setQuery(event.target.value);
          setFound(event.target.value ? search.findNext(event.target.value, { incremental: true }) : undefined);
        }}
        onKeyDown={(event) => {
          if (event.key === "Enter") find(event.shiftKey);
          if (event.key === "Escape") onClose();
        }}
      />
      <span className="terminal-search-status">{found === false ? "No match" : ""}</span>
      <button type="button" onClick={() => find(true)} aria-label="Previous match">
        ↑
      </button>
      <button type="button" onClick={() => find(false)} aria-label="Next match">
        ↓
      </button>
      <button type="button" onClick={onClose} aria-label="Close search">
        ×
      </button>
    </search>
  );
}

/** The WebGL renderer when the browser has it; the DOM renderer otherwise or after a lost context. */
function loadWebgl(terminal: Terminal): void {
  try {
    const webgl = new WebglAddon();
    webgl.onContextLoss(() => webgl.dispose());
    terminal.loadAddon(webgl);
  } catch {
    // Stays on the DOM renderer.
  }
}

async function copy(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard permission (e.g. an unfocused page): the selection stays for a later copy.
  }
}
