/**
 * Input xterm.js sends on its own, not typed: focus reports (tmux turns them
 * on, so leaving the terminal for the file tree sends ESC [ O) and mouse
 * reports (tmux's mouse mode: a wheel or a move over the terminal). While the
 * workspace sleeps these must not wake it; only a key does.
 */
// Each: focus in/out; SGR mouse (ESC [ < b;x;y M|m); urxvt mouse (ESC [ b;x;y M).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point
const REPORT = /\x1b\[(?:[IO]|<\d+;\d+;\d+[Mm]|\d+;\d+;\d+M)/y;

/** Whether `data` is made only of focus and mouse reports. */
export function isOnlyReports(data: string): boolean {
  if (data.length === 0) return false;
  REPORT.lastIndex = 0;
  while (REPORT.lastIndex < data.length) {
    if (!REPORT.test(data)) return false;
  }
  return true;
}
