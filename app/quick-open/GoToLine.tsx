import { useCallback } from "react";
import type { EditorModel } from "../editor/editor-model";
import { QuickPick } from "./QuickPick";

interface Item {
  line?: number;
  column?: number;
  hint: string;
}

/** Ctrl/Cmd+G: a line (and column) of the open file, `42` or `42:7`. */
export function GoToLine({ editor, onClose }: { editor: EditorModel; onClose: () => void }) {
  const path = editor.activePath;
  const lines = path ? (editor.state(path)?.doc.lines ?? 0) : 0;
  const items = useCallback(
    (query: string): Item[] => {
      const match = /^\s*(\d+)(?:\s*[:,]\s*(\d+))?\s*$/.exec(query);
      if (!match) return [{ hint: `Type a line number from 1 to ${lines} (line:column also works).` }];
      const line = Math.min(Math.max(1, Number(match[1])), Math.max(1, lines));
      const column = match[2] === undefined ? 1 : Math.max(1, Number(match[2]));
      return [{ line, column, hint: `Go to line ${line}${column > 1 ? `, column ${column}` : ""}` }];
    },
    [lines],
  );
  return (
    <QuickPick<Item>
      label="Go to line"
      placeholder={`Line number (1 to ${lines})`}
      items={items}
      itemKey={(item) => item.hint}
      disabled={(item) => item.line === undefined}
      renderItem={(item) => <span>{item.hint}</span>}
      onClose={onClose}
      onPick={(item) => {
        if (path && item.line !== undefined) void editor.open(path, { line: item.line, column: item.column ?? 1 });
      }}
    />
  );
}
