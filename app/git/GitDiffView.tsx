import { MergeView } from "@codemirror/merge";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { useEffect, useRef } from "react";
import type { GitDiffSide } from "../../protocol/git";
import { compareExtensions } from "../editor/buffer-extensions";
import type { DiffState } from "./git-model";

/** A file's change side by side in CodeMirror's merge view, read-only: HEAD or the index against the newer side. */
export function GitDiffView({
  state,
  onClose,
  onOpenFile,
}: {
  state: DiffState;
  onClose: () => void;
  onOpenFile: (path: string) => void;
}) {
  const { path, diff, error } = state;
  return (
    <div className="editor-pane git-diff" data-testid="git-diff" data-path={path} data-staged={String(state.staged)}>
      <div className="git-diff-bar">
        <span className="git-diff-title">
          {path}
          {diff && (
            <span className="git-diff-sides">
              {" "}
              {diff.original.label} ↔ {diff.modified.label}
            </span>
          )}
        </span>
        <button type="button" onClick={() => onOpenFile(path)}>
          Open file
        </button>
        <button type="button" aria-label="Close the diff" data-testid="git-diff-close" onClick={onClose}>
          ×
        </button>
      </div>
      <div className="editor-body">
        {error ? (
          <p className="placeholder">{error}</p>
        ) : !diff ? (
          <p className="placeholder">Reading the change…</p>
        ) : unshowable(diff.original) || unshowable(diff.modified) ? (
          <p className="placeholder">{unshowable(diff.original) ?? unshowable(diff.modified)}</p>
        ) : (
          <Merge path={path} original={diff.original.text ?? ""} modified={diff.modified.text ?? ""} />
        )}
      </div>
    </div>
  );
}

function unshowable(side: GitDiffSide): string | undefined {
  if (side.binary) return `The ${side.label} version is binary.`;
  if (side.tooLarge) return `The ${side.label} version is too large to compare here.`;
  return undefined;
}

function Merge({ path, original, modified }: { path: string; original: string; modified: string }) {
  const parent = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!parent.current) return;
    const readOnly = [compareExtensions(path), EditorState.readOnly.of(true), EditorView.editable.of(false)];
    const merge = new MergeView({
      a: { doc: original, extensions: readOnly },
      b: { doc: modified, extensions: readOnly },
      parent: parent.current,
      collapseUnchanged: { margin: 3, minSize: 6 },
    });
    return () => merge.destroy();
  }, [path, original, modified]);
  return <div className="compare-view" ref={parent} data-testid="git-merge-view" />;
}
