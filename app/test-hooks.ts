/**
 * Hooks for the browser tests, on `window.__cloudIde`: drop a terminal's
 * socket, disconnect a file's shared document, read a terminal's screen and size, read the editor's document and its first visible line.
 * Loaded only when the test dev
 * server runs the app (CLOUD_IDE_TEST_HOOKS=1, see vite.config.ts); a
 * production build has no trace of them.
 */
import { EditorView } from "@codemirror/view";
import { openRooms } from "./collab/presence";
import { topLine } from "./collab/scroll-line";
import { openSharedFiles } from "./collab/shared-file";
import { terminalRegistry } from "./terminal/registry";

declare global {
  interface Window {
    __cloudIde?: Record<string, unknown>;
  }
}

/** The visible lines of a terminal, as text. */
function screenText(name?: string): string {
  const terminal = terminalRegistry.get(name)?.terminal;
  if (!terminal) return "";
  const buffer = terminal.buffer.active;
  const lines: string[] = [];
  for (let y = buffer.viewportY; y < buffer.viewportY + terminal.rows; y++) {
    lines.push(buffer.getLine(y)?.translateToString(true) ?? "");
  }
  return lines.join("\n");
}

window.__cloudIde = {
  dropTerminalSocket: (name?: string) => terminalRegistry.get(name)?.connection.drop(),
  /** Drops the presence socket; resolves once it is back and in step. */
  dropPresenceSocket: () => Promise.all([...openRooms].map((room) => room.dropSocket())),
  /** Disconnects an open file's shared document; it stays so until a save asks for it again. */
  disconnectSharedFile: (path: string) => {
    const file = openSharedFiles.get(path);
    if (!file) throw new Error(`${path} has no shared document open`);
    file.disconnect();
  },
  terminalText: screenText,
  /** The editor's document (without widgets such as other people's cursors); undefined when none shows. */
  editorText: () => {
    const editor = document.querySelector<HTMLElement>('[data-testid="code-editor"] .cm-editor');
    return editor ? EditorView.findFromDOM(editor)?.state.doc.toString() : undefined;
  },
  /** The editor's first visible line (1-based), as presence publishes it; undefined when no file shows. */
  editorTopLine: () => {
    const editor = document.querySelector<HTMLElement>('[data-testid="code-editor"] .cm-editor');
    const view = editor ? EditorView.findFromDOM(editor) : null;
    return view ? topLine(view) : undefined;
  },
  terminalSize: (name?: string) => {
    const terminal = terminalRegistry.get(name)?.terminal;
    return terminal ? { cols: terminal.cols, rows: terminal.rows } : undefined;
  },
};
