import { Prec } from "@codemirror/state";
import { keymap } from "@codemirror/view";
import { useEffect, useMemo, useState } from "react";
import type { SearchApi } from "../api/search";
import { useCommands, useRegisterCommands } from "../commands/useCommands";
import type { EditorModel } from "../editor/editor-model";
import type { FileEvents } from "../files/file-events";
import { FileIndexModel } from "../files/file-index-model";
import { CommandPalette } from "./CommandPalette";
import { GoToLine } from "./GoToLine";
import { QuickOpen } from "./QuickOpen";

type Picker = "files" | "commands" | "line";

/**
 * Quick open (Ctrl/Cmd+P), the command palette (Ctrl/Cmd+Shift+P, or F1
 * where the browser keeps Ctrl+Shift+P) and go to line (Ctrl/Cmd+G): their
 * commands, and whichever of them is open. The file index is read the first
 * time quick open opens and kept current by the file watcher from then on.
 */
export function Pickers({ search, editor, events }: { search: SearchApi; editor: EditorModel; events: FileEvents }) {
  const [open, setOpen] = useState<Picker>();
  const registry = useCommands();
  const index = useMemo(() => new FileIndexModel(search), [search]);
  useEffect(() => {
    const unsubscribe = events.subscribe(index.onFileEvent);
    return () => {
      unsubscribe();
      index.dispose();
    };
  }, [events, index]);
  // CodeMirror's search keys take Mod-g (find next) in the editor; here it goes to a line, as in other IDEs
  // (F3 still finds the next match).
  useEffect(
    () =>
      editor.addExtensions(() =>
        Prec.highest(keymap.of([{ key: "Mod-g", preventDefault: true, run: () => registry.run("editor.goToLine") }])),
      ),
    [editor, registry],
  );
  useRegisterCommands(
    () => [
      {
        id: "workbench.quickOpen",
        title: "Go to file…",
        keys: ["Mod-p"],
        run: () => {
          void index.ensureLoaded();
          setOpen("files");
        },
      },
      {
        id: "workbench.commands",
        title: "Show all commands",
        keys: ["Mod-Shift-p", "F1"],
        global: true,
        run: () => setOpen("commands"),
      },
      {
        id: "editor.goToLine",
        title: "Go to line…",
        keys: ["Mod-g"],
        enabled: () => editor.activePath !== undefined && editor.get(editor.activePath)?.kind === "text",
        run: () => setOpen("line"),
      },
    ],
    [index, editor],
  );
  const close = () => setOpen(undefined);
  if (open === "files") return <QuickOpen index={index} editor={editor} onClose={close} />;
  if (open === "commands") return <CommandPalette registry={registry} onClose={close} />;
  if (open === "line") return <GoToLine editor={editor} onClose={close} />;
  return null;
}
