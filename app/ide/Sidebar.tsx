import { type ReactNode, useEffect, useMemo, useState } from "react";
import type { SearchApi } from "../api/search";
import type { PeopleAt } from "../collab/presence-model";
import { useRegisterCommands } from "../commands/useCommands";
import type { EditorModel } from "../editor/editor-model";
import { FileTree } from "../files/FileTree";
import type { FileTreeModel } from "../files/file-tree-model";
import { SearchPanel } from "../search/SearchPanel";
import { SearchModel } from "../search/search-model";

type View = "files" | "search" | "git";

/** Source control's part of the pane: its panel, the tree's marks, and asks to be shown. */
export interface SidebarGit {
  panel: ReactNode;
  /** Changed files, for the tab's badge. */
  changes: number;
  marks: ReadonlyMap<string, string>;
  /** Each increase shows the panel (the "Source control: show" command). */
  showRequest: number;
}

/**
 * The Files pane: the file tree, search in files (Ctrl/Cmd+Shift+F, also
 * from the terminal), or source control (Ctrl/Cmd+Shift+G). All stay
 * mounted, so switching keeps each one's state. `onShow` brings the pane
 * forward where panes are tabs (phones, tablets).
 */
export function Sidebar(props: {
  tree: FileTreeModel;
  activePath: string | undefined;
  editor: EditorModel;
  search: SearchApi;
  git: SidebarGit;
  onShow: () => void;
  /** Who else has each file open, and a file under each folder. */
  openBy?: PeopleAt;
  openUnder?: PeopleAt;
}) {
  const { tree, activePath, editor, search, git, onShow, openBy, openUnder } = props;
  const [view, setView] = useState<View>("files");
  useEffect(() => {
    if (git.showRequest === 0) return;
    setView("git");
    onShow();
  }, [git.showRequest, onShow]);
  const [focusRequest, setFocusRequest] = useState(0);
  const model = useMemo(() => new SearchModel(search), [search]);
  useEffect(() => {
    // A closed connection does not always reach the server: a page that goes ends its search itself.
    const leave = () => model.dispose({ leaving: true });
    window.addEventListener("pagehide", leave);
    return () => {
      window.removeEventListener("pagehide", leave);
      model.dispose();
    };
  }, [model]);
  useRegisterCommands(
    () => [
      {
        id: "search.inFiles",
        title: "Search in files",
        keys: ["Mod-Shift-f"],
        global: true,
        run: () => {
          // The editor's selection, when it is a few words on one line, is what to look for.
          const state = editor.activePath ? editor.state(editor.activePath) : undefined;
          const range = state?.selection.main;
          const selected = state && range && !range.empty ? state.sliceDoc(range.from, range.to) : "";
          if (selected && !selected.includes("\n") && selected.length <= 200) model.set({ query: selected });
          setView("search");
          setFocusRequest((n) => n + 1);
          onShow();
        },
      },
      {
        id: "files.show",
        title: "Show the file tree",
        run: () => {
          setView("files");
          onShow();
        },
      },
      {
        id: "files.toggleHidden",
        title: "Show or hide hidden files",
        run: () => tree.setShowHidden(!tree.getSnapshot().showHidden),
      },
    ],
    [model, editor, tree, onShow],
  );
  const tab = (id: View, label: ReactNode) => (
    <button
      type="button"
      role="tab"
      id={`sidebar-tab-${id}`}
      aria-selected={view === id}
      aria-controls={`sidebar-${id}`}
      data-testid={`sidebar-${id}`}
      onClick={() => setView(id)}
    >
      {label}
    </button>
  );
  return (
    <div className="sidebar">
      <div className="sidebar-tabs" role="tablist" aria-label="Files, search or source control">
        {tab("files", "Files")}
        {tab("search", "Search")}
        {tab(
          "git",
          <span title="Source control (Ctrl/Cmd+Shift+G)">
            Git
            {git.changes > 0 && (
              <span className="side-badge" data-testid="git-badge">
                {git.changes}
              </span>
            )}
          </span>,
        )}
      </div>
      <div
        className="sidebar-view"
        id="sidebar-files"
        role="tabpanel"
        aria-labelledby="sidebar-tab-files"
        hidden={view !== "files"}
      >
        <FileTree model={tree} activePath={activePath} marks={git.marks} openBy={openBy} openUnder={openUnder} />
      </div>
      <div
        className="sidebar-view"
        id="sidebar-search"
        role="tabpanel"
        aria-labelledby="sidebar-tab-search"
        hidden={view !== "search"}
      >
        <SearchPanel model={model} editor={editor} focusRequest={focusRequest} />
      </div>
      <div
        className="sidebar-view"
        id="sidebar-git"
        role="tabpanel"
        aria-labelledby="sidebar-tab-git"
        hidden={view !== "git"}
      >
        {git.panel}
      </div>
    </div>
  );
}
