/**
 * What a terminal shows: the bytes a terminal socket received, rendered by
 * xterm.js's own parser (@xterm/headless, the parser of the app's xterm).
 * tmux draws a line however it likes (`\r\n`, or cursor addressing such as
 * `ESC[2;1H`), so tests assert on the rendered screen, never on the byte
 * stream's line endings.
 */
import headless from "@xterm/headless";

// The package is CommonJS: its named export is on the default import.
const { Terminal } = headless;

export class Screen {
  readonly #terminal: InstanceType<typeof Terminal>;
  /** Settles once everything written so far is parsed (xterm parses in chunks). */
  #parsed: Promise<void> = Promise.resolve();

  constructor(cols: number, rows: number) {
    this.#terminal = new Terminal({ cols, rows, scrollback: 5_000, allowProposedApi: true });
  }

  /** Feeds received bytes; `onParsed` runs once they are on the screen. */
  write(bytes: Uint8Array, onParsed?: () => void): void {
    this.#parsed = new Promise((resolve) =>
      this.#terminal.write(bytes, () => {
        resolve();
        onParsed?.();
      }),
    );
  }

  resize(cols: number, rows: number): void {
    this.#terminal.resize(cols, rows);
  }

  /** The rendered lines (scrollback, then the visible rows), trailing blanks trimmed. */
  linesNow(): string[] {
    const buffer = this.#terminal.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) {
      const line = buffer.getLine(y);
      if (!line) continue;
      // A soft-wrapped row continues the one before it.
      const text = line.translateToString(true);
      if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    return lines;
  }

  /** The rendered text, lines joined with "\n", once everything received is parsed. */
  async text(): Promise<string> {
    await this.#parsed;
    return this.linesNow().join("\n");
  }

  dispose(): void {
    this.#terminal.dispose();
  }
}
