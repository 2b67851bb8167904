/**
 * A document's text as a language server holds it, kept in step with the
 * `textDocument/didChange` notifications a client sends (whole-text or
 * incremental changes, positions in UTF-16 code units, as LSP counts them).
 * The bridge keeps one per client per open file, so it can hand the server
 * any client's text when several tabs edit the same file.
 */

export interface Position {
  line: number;
  character: number;
}

export interface ContentChange {
  range?: { start: Position; end: Position };
  text: string;
}

/** Applies changes in order, each against the text the ones before it left. */
export function applyContentChanges(text: string, changes: readonly ContentChange[]): string {
  let result = text;
  for (const change of changes) {
    if (!change.range) {
      result = change.text;
      continue;
    }
    const starts = lineStarts(result);
    const from = offsetAt(result, starts, change.range.start);
    const to = Math.max(from, offsetAt(result, starts, change.range.end));
    result = result.slice(0, from) + change.text + result.slice(to);
  }
  return result;
}

/** Whether a notification's contentChanges are well formed (strings, and ranges of numbers). */
export function isContentChanges(value: unknown): value is ContentChange[] {
  return (
    Array.isArray(value) &&
    value.every(
      (change) =>
        typeof change === "object" &&
        change !== null &&
        typeof (change as ContentChange).text === "string" &&
        ((change as ContentChange).range === undefined || isRange((change as ContentChange).range)),
    )
  );
}

function isRange(value: unknown): boolean {
  const range = value as { start?: Position; end?: Position };
  return isPosition(range?.start) && isPosition(range?.end);
}

function isPosition(value: unknown): boolean {
  const position = value as Position | undefined;
  return Number.isInteger(position?.line) && Number.isInteger(position?.character);
}

/** Offsets where each line begins (LSP lines end at \n, \r\n or \r). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    } else if (c === 10 /* \n */) {
      starts.push(i + 1);
    }
  }
  return starts;
}

/** A position's offset, clamped into the text and into its line (as servers do). */
function offsetAt(text: string, starts: number[], { line, character }: Position): number {
  if (line < 0) return 0;
  if (line >= starts.length) return text.length;
  const start = starts[line] as number;
  let end = line + 1 < starts.length ? (starts[line + 1] as number) : text.length;
  // The line's end is before its line break.
  while (end > start && (text.charCodeAt(end - 1) === 10 || text.charCodeAt(end - 1) === 13)) end--;
  return start + Math.max(0, Math.min(character, end - start));
}
