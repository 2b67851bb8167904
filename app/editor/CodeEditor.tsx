import { indentWithTab } from "@codemirror/commands";
import { MergeView } from "@codemirror/merge";
import { Compartment, EditorState, type Extension, Prec } from "@codemirror/state";
import { oneDark } from "@codemirror/theme-one-dark";
import { EditorView, keymap } from "@codemirror/view";
import { basicSetup } from "codemirror";
import { useEffect, useRef } from "react";
import { languageFor } from "./languages";

/** Extensions every buffer gets; `onSave` runs on Ctrl/Cmd+S. Search and replace come from basicSetup (Ctrl/Cmd+F). */
export function bufferExtensions(path: string, readOnly: boolean, onSave: () => void, onChange: () => void): Extension {
  return [
    basicSetup,
    oneDark,
    keymap.of([indentWithTab]),
    Prec.highest(
      keymap.of([
        {
          key: "Mod-s",
          preventDefault: true,
          run: () => {
            onSave();
            return true;
          },
        },
      ]),
    ),
    languageFor(path),
    readOnlyCompartment.of([EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly)]),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) onChange();
    }),
  ];
}

export const readOnlyCompartment = new Compartment();

/** Shows one EditorState at a time; switching tabs swaps states so each keeps its undo history. */
export function CodeEditor({ state, onView }: { state: EditorState; onView: (view: EditorView | undefined) => void }) {
  const parent = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  useEffect(() => {
    if (!parent.current) return;
    const created = new EditorView({ state, parent: parent.current });
    view.current = created;
    onView(created);
    return () => {
      onView(undefined);
      created.destroy();
      view.current = undefined;
    };
    // The view is made once; state changes are applied below.
    // eslint-disable-next-line
  }, [state, onView]);
  useEffect(() => {
    const current = view.current;
    if (current && current.state !== state) {
      current.setState(state);
      current.focus();
    }
  }, [state]);
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
    const shared = [basicSetup, oneDark, languageFor(path)];
    const merge = new MergeView({
      a: { doc: mine, extensions: shared },
      b: { doc: disk, extensions: [...shared, EditorState.readOnly.of(true), EditorView.editable.of(false)] },
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
