/**
 * LSP text edits (0-based lines, UTF-16 characters, all against the same
 * original text, never overlapping) applied to a string: how a rename
 * changes a file that is not open in the editor.
 */

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspTextEdit {
  range: { start: LspPosition; end: LspPosition };
  newText: string;
}

export function applyTextEdits(text: string, edits: readonly LspTextEdit[]): string {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const offset = ({ line, character }: LspPosition) => {
    if (line >= starts.length) return text.length;
    const start = starts[line] as number;
    const next = line + 1 < starts.length ? (starts[line + 1] as number) - 1 : text.length;
    // A line's end is before its \n (and a \r before that).
    const end = next > start && text.charCodeAt(next - 1) === 13 ? next - 1 : next;
    return start + Math.max(0, Math.min(character, end - start));
  };
  const resolved = edits
    .map((edit) => ({ from: offset(edit.range.start), to: offset(edit.range.end), insert: edit.newText }))
    .sort((a, b) => b.from - a.from || b.to - a.to);
  let result = text;
  for (const { from, to, insert } of resolved)
    result = result.slice(0, from) + insert + result.slice(Math.max(from, to));
  return result;
}

/** A text edit in the editor's 1-based positions. */
export function toEditorEdit(edit: LspTextEdit) {
  return {
    from: { line: edit.range.start.line + 1, column: edit.range.start.character + 1 },
    to: { line: edit.range.end.line + 1, column: edit.range.end.character + 1 },
    insert: edit.newText,
  };
}
