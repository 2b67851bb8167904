import { MergeView } from "@codemirror/merge";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { useEffect, useRef } from "react";
import { compareExtensions } from "./buffer-extensions";
import type { EditorModel } from "./editor-model";

/** The one CodeMirror view; the model puts the active buffer's state into it. */
export function CodeEditor({ model }: { model: EditorModel }) {
  const parent = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!parent.current) return;
    const view = new EditorView({ parent: parent.current });
    model.attachView(view);
    return () => {
      model.attachView(undefined);
      view.destroy();
    };
  }, [model]);
  return <div className="code-editor" ref={parent} data-testid="code-editor" />;
}

/** Side by side: the buffer (left, editable) against the disk version (right). */
export function CompareView({
  path,
  mine,
  disk,
  onView,
}: {
  path: string;
  mine: string;
  disk: string;
  onView: (merge: MergeView | undefined) => void;
}) {
  const parent = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!parent.current) return;
    const shared = compareExtensions(path);
    const merge = new MergeView({
      a: { doc: mine, extensions: shared },
      b: { doc: disk, extensions: [shared, EditorState.readOnly.of(true), EditorView.editable.of(false)] },
      parent: parent.current,
    });
    onView(merge);
    return () => {
      onView(undefined);
      merge.destroy();
    };
  }, [path, mine, disk, onView]);
  return <div className="compare-view" ref={parent} data-testid="compare-view" />;
}
