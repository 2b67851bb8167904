/**
 * What a person types into quick open: a fuzzy file name, optionally with a
 * place, `main.tsx:42` or `main.tsx:42:7`; `:42` alone is a line of the file
 * already open.
 */
export interface QuickOpenQuery {
  file: string;
  line?: number;
  column?: number;
}

export function parseQuickOpen(text: string): QuickOpenQuery {
  const match = /^(.*?):(\d+)(?::(\d+))?\s*$/.exec(text);
  if (!match) return { file: text.trim() };
  const line = Number(match[2]);
  const column = match[3] === undefined ? undefined : Number(match[3]);
  return {
    file: (match[1] ?? "").trim(),
    ...(line > 0 ? { line } : {}),
    ...(column !== undefined && column > 0 ? { column } : {}),
  };
}

/** Splits `text` into runs, marking the characters at `indexes` (sorted) as matched, for highlighting. */
export function highlightRuns(
  text: string,
  indexes: readonly number[],
): { text: string; matched: boolean; start: number }[] {
  const marked = new Set(indexes);
  const runs: { text: string; matched: boolean; start: number }[] = [];
  for (let i = 0; i < text.length; i++) {
    const matched = marked.has(i);
    const last = runs.at(-1);
    if (last && last.matched === matched) last.text += text[i];
    else runs.push({ text: text[i] as string, matched, start: i });
  }
  return runs;
}
