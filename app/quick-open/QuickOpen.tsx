import { useCallback, useSyncExternalStore } from "react";
import type { EditorModel } from "../editor/editor-model";
import type { FileIndexModel, FileMatch } from "../files/file-index-model";
import { QuickPick } from "./QuickPick";
import { highlightRuns, parseQuickOpen } from "./quick-open";

type Item = FileMatch | { line: number; column?: number };

/** Ctrl/Cmd+P: a file by a fuzzy name, `name:42` at a line, `:42` a line of the open file. */
export function QuickOpen({
  index,
  editor,
  onClose,
}: {
  index: FileIndexModel;
  editor: EditorModel;
  onClose: () => void;
}) {
  const snapshot = useSyncExternalStore(index.subscribe, index.getSnapshot);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the index changed (count, state): filter again
  const items = useCallback(
    (text: string): Item[] => {
      const { file, line, column } = parseQuickOpen(text);
      if (file === "" && line !== undefined) return editor.activePath ? [{ line, column }] : [];
      return index.find(file, 30);
    },
    [index, editor, snapshot],
  );
  const status =
    snapshot.state === "error"
      ? `The file list could not be read: ${snapshot.error}`
      : snapshot.state === "ready"
        ? `${snapshot.count.toLocaleString()} files${snapshot.limitHit ? " (the first ones only)" : ""}`
        : "Reading the file list…";
  return (
    <QuickPick<Item>
      label="Go to file"
      placeholder="File name (fuzzy); add :line to go there"
      items={items}
      itemKey={(item) => ("path" in item ? item.path : `:${item.line}`)}
      renderItem={(item) => ("path" in item ? <FileRow match={item} /> : <span>Go to line {item.line}</span>)}
      status={status}
      onClose={onClose}
      onPick={(item, text) => {
        const { line, column } = parseQuickOpen(text);
        const at = line === undefined ? undefined : { line, column: column ?? 1 };
        const path = "path" in item ? item.path : editor.activePath;
        // With a line, opening puts the cursor there and focuses the editor; without, the editor gets the keyboard too.
        if (path) void editor.open(path, at).then(() => editor.focus());
      }}
    />
  );
}

function FileRow({ match }: { match: FileMatch }) {
  const slash = match.path.lastIndexOf("/");
  const name: React.ReactNode[] = [];
  const folder: React.ReactNode[] = [];
  for (const run of highlightRuns(match.path, match.indexes)) {
    // A run may straddle the last slash: split it between folder and name.
    const cut = Math.max(0, Math.min(run.text.length, slash + 1 - run.start));
    for (const [at, text] of [
      [run.start, run.text.slice(0, cut)],
      [run.start + cut, run.text.slice(cut)],
    ] as const) {
      if (!text) continue;
      const node = run.matched ? <mark key={at}>{text}</mark> : <span key={at}>{text}</span>;
      (at <= slash ? folder : name).push(node);
    }
  }
  return (
    <>
      <span className="quick-pick-name">{name}</span>
      <span className="quick-pick-detail">{folder}</span>
    </>
  );
}
