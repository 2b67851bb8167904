import { EditorState, Prec } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { memo, useCallback, useEffect, useState, useSyncExternalStore } from "react";
import type { WorkspaceApi } from "../api/workspace";
import type { PresenceRoom } from "../collab/presence";
import { usePresenceAt } from "../collab/usePresence";
import { useRegisterCommands } from "../commands/useCommands";
import type { PaneId } from "../components/Pane";
import { SplitLayout } from "../components/SplitLayout";
import { TabbedLayout } from "../components/TabbedLayout";
import { EditorPane } from "../editor/EditorPane";
import type { EditorModel } from "../editor/editor-model";
import { GitDiffView } from "../git/GitDiffView";
import { SourceControlPanel } from "../git/SourceControlPanel";
import { useGitCommands } from "../git/useGitCommands";
import { useWorkspaceGit } from "../git/useWorkspaceGit";
import { COMPACT_LAYOUT, useMediaQuery } from "../hooks/useMediaQuery";
import { LanguagePanel } from "../lsp/LanguagePanel";
import { useLanguageServices } from "../lsp/useLanguageServices";
import { PreviewPane } from "../previews/PreviewPane";
import { Pickers } from "../quick-open/Pickers";
import { TerminalPanel } from "../terminal/TerminalPanel";
import { Sidebar } from "./Sidebar";
import { useAgentPanel } from "./useAgentPanel";
import { useFollow, usePublishEditor } from "./usePresenceEditor";
import { useWorkspaceFiles } from "./useWorkspaceFiles";

/** A viewer's buffers: shown, not editable (highest: these facets take their first value, and each buffer gives its own). */
const VIEW_ONLY = Prec.highest([EditorState.readOnly.of(true), EditorView.editable.of(false)]);

/**
 * The workspace's four panes: side by side on a desktop (SplitLayout), as
 * tabs on phones and tablets (TabbedLayout).
 */
function Layout({
  api,
  onTerminalConnected,
  readOnly = false,
  presence,
}: {
  api: WorkspaceApi;
  onTerminalConnected?: () => void;
  /** A viewer's page: the editor takes no typing (the server refuses their writes anyway). */
  readOnly?: boolean;
  /** The page's place in the presence room: what it shows goes there, and it may follow someone. */
  presence?: PresenceRoom;
}) {
  const files = useWorkspaceFiles(api.files);
  const { editor, activePath } = files;
  const compact = useMediaQuery(COMPACT_LAYOUT);
  const [maximized, setMaximized] = useState<PaneId>();
  const [tab, setTab] = useState<PaneId>("terminal");
  const [gitShowRequest, setGitShowRequest] = useState(0);
  const git = useWorkspaceGit(api.git, files.events, editor);
  const { marks, diff, status } = useSyncExternalStore(git.subscribe, git.getSnapshot);
  const showGit = useCallback(() => setGitShowRequest((n) => n + 1), []);
  useGitCommands(git, showGit, (error) => git.fail(error));
  const toggleMaximized = (pane: PaneId) => setMaximized((current) => (current === pane ? undefined : pane));
  const showFiles = useCallback(() => setTab("files"), []);
  useEditorCommands(editor);
  usePublishEditor(presence, editor);
  useFollow(presence, editor);
  const openBy = usePresenceAt(presence, "files");
  const openUnder = usePresenceAt(presence, "folders");
  const watchers = usePresenceAt(presence, "terminals");
  const lsp = useLanguageServices(api, editor, !readOnly);
  useEffect(() => (readOnly ? editor.addExtensions(() => VIEW_ONLY) : undefined), [editor, readOnly]);
  const agentPanel = useAgentPanel(api, editor, readOnly);
  useRegisterCommands(
    () => [
      {
        id: "layout.maximize",
        title: "Maximize or restore the focused pane",
        keys: ["Mod-Shift-Enter"],
        global: true,
        run: () => {
          const focused = document.activeElement?.closest<HTMLElement>("[data-pane]")?.dataset.pane as PaneId;
          setMaximized((current) => (current ? undefined : (focused ?? "terminal")));
        },
      },
    ],
    [],
  );
  // On a phone, opening a file or a diff shows it; opening a file closes the diff.
  useEffect(() => {
    if (activePath) setTab("editor");
    git.closeDiff();
  }, [activePath, git]);
  useEffect(() => {
    if (diff) setTab("editor");
  }, [diff]);
  const changes = status?.repository ? status.total : 0;

  const panes: Record<PaneId, React.ReactNode> = {
    files: (
      <Sidebar
        tree={files.tree}
        activePath={activePath}
        editor={editor}
        search={api.search}
        git={{ panel: <SourceControlPanel model={git} api={api} />, changes, marks, showRequest: gitShowRequest }}
        onShow={showFiles}
        openBy={openBy}
        openUnder={openUnder}
      />
    ),
    editor: diff ? (
      <GitDiffView
        state={diff}
        onClose={() => git.closeDiff()}
        onOpenFile={(path) => {
          git.closeDiff();
          void editor.open(path);
        }}
      />
    ) : (
      <EditorPane
        model={editor}
        files={api.files}
        footer={<LanguagePanel services={lsp.services} editor={editor} action={lsp.action} />}
      />
    ),
    terminal: (
      <TerminalPanel
        terminals={api.terminals}
        onConnected={onTerminalConnected}
        readOnly={readOnly}
        watchers={watchers}
        onShow={presence?.setTerminal}
      />
    ),
    preview: <PreviewPane previews={api.previews} />,
  };
  const pickers = <Pickers search={api.search} editor={editor} events={files.events} />;
  if (compact)
    return (
      <>
        <TabbedLayout panes={panes} active={tab} onActivate={setTab} />
        {pickers}
        {agentPanel}
      </>
    );
  return (
    <>
      <SplitLayout
        panes={panes}
        hasOpenFiles={activePath !== undefined}
        maximized={maximized}
        onMaximize={toggleMaximized}
      />
      {pickers}
      {agentPanel}
    </>
  );
}

/**
 * Renders again only when its own props change: the page above it renders with every status poll (each
 * 10 s, each second while busy), and this renders every pane.
 */
export const IdeLayout = memo(Layout);

/** The editor's commands, for the keys and the palette. */
function useEditorCommands(editor: EditorModel) {
  useRegisterCommands(
    () => [
      { id: "editor.save", title: "Save file", keys: ["Mod-s"], run: () => editor.save() },
      { id: "editor.saveAll", title: "Save all files", keys: ["Mod-Alt-s"], run: () => editor.saveAll() },
      {
        id: "editor.close",
        title: "Close file",
        keys: ["Alt-w"],
        enabled: () => editor.activePath !== undefined,
        run: () => {
          if (editor.activePath) editor.close(editor.activePath);
        },
      },
    ],
    [editor],
  );
}
