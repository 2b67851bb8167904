import { indentWithTab } from "@codemirror/commands";
import { EditorState, type Extension, Prec } from "@codemirror/state";
import { oneDark } from "@codemirror/theme-one-dark";
import { EditorView, keymap } from "@codemirror/view";
import { basicSetup } from "codemirror";
import { languageFor } from "./languages";

/**
 * Extensions every buffer gets; `onSave` runs on Ctrl/Cmd+S, `onChange` after
 * each change of the document. Search and replace come from basicSetup (Ctrl/Cmd+F).
 */
export function bufferExtensions(
  path: string,
  readOnly: boolean,
  { onSave, onChange }: { onSave: () => void; onChange: () => void },
): Extension {
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
    EditorState.readOnly.of(readOnly),
    EditorView.editable.of(!readOnly),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) onChange();
    }),
  ];
}

/** What the compare view's two sides share. */
export function compareExtensions(path: string): Extension {
  return [basicSetup, oneDark, languageFor(path)];
}
