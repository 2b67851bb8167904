import type { ReactNode } from "react";
import { Group, Panel, Separator, useDefaultLayout } from "react-resizable-panels";
import type { WorkspaceApi } from "../api/workspace";
import { useRegisterCommands } from "../commands/useCommands";
import { EditorPane } from "../editor/EditorPane";
import { useWorkspaceFiles } from "../files/useWorkspaceFiles";
import { FileTree } from "./FileTree";
import { PreviewPane } from "./PreviewPane";
import { TerminalPanel } from "./TerminalPanel";

/**
 * The IDE's frame: file tree | (editor over terminal) | preview. Every split is
 * resizable and remembered in localStorage.
 */
export function IdeLayout({ api }: { api: WorkspaceApi }) {
  const files = useWorkspaceFiles(api.files);
  const { editor } = files;
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
  const columns = useDefaultLayout({ id: "ide-columns", storage: localStorage });
  const center = useDefaultLayout({ id: "ide-center", storage: localStorage });
  return (
    <Group
      className="ide-body"
      orientation="horizontal"
      defaultLayout={columns.defaultLayout}
      onLayoutChanged={columns.onLayoutChanged}
    >
      <Panel id="files" defaultSize="18" minSize="10">
        <Pane title="Files" testId="pane-files">
          <FileTree model={files.tree} activePath={files.activePath} />
        </Pane>
      </Panel>
      <Separator className="separator separator-vertical" />
      <Panel id="center" defaultSize="52" minSize="25">
        <Group orientation="vertical" defaultLayout={center.defaultLayout} onLayoutChanged={center.onLayoutChanged}>
          <Panel id="editor" defaultSize="60" minSize="15">
            <Pane title="Editor" testId="pane-editor">
              <EditorPane model={editor} files={api.files} />
            </Pane>
          </Panel>
          <Separator className="separator separator-horizontal" />
          <Panel id="terminal" defaultSize="40" minSize="10">
            <Pane title="Terminal" testId="pane-terminal">
              <TerminalPanel terminals={api.terminals} />
            </Pane>
          </Panel>
        </Group>
      </Panel>
      <Separator className="separator separator-vertical" />
      <Panel id="preview" defaultSize="30" minSize="10">
        <Pane title="Preview" testId="pane-preview">
          <PreviewPane previews={api.previews} />
        </Pane>
      </Panel>
    </Group>
  );
}

function Pane({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
  return (
    <section className="pane" data-testid={testId} aria-label={title}>
      <h2 className="pane-title">{title}</h2>
      <div className="pane-body">{children}</div>
    </section>
  );
}
