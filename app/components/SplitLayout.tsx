import { useEffect, useRef } from "react";
import { Group, type Layout, Panel, Separator, useDefaultLayout, useGroupRef } from "react-resizable-panels";
import { Pane, type PaneId } from "./Pane";

/** The editor's share of the center column while no file is open: the terminal gets the room. */
const COMPACT_EDITOR = { editor: 22, terminal: 78 };
const DEFAULT_CENTER = { editor: 60, terminal: 40 };

/**
 * Desktop: files | (editor over terminal) | preview. Every split is resizable
 * and remembered (only the person's own resizing is saved); any pane can fill
 * the window and come back.
 */
export function SplitLayout({
  panes,
  hasOpenFiles,
  maximized,
  onMaximize,
}: {
  panes: Record<PaneId, React.ReactNode>;
  hasOpenFiles: boolean;
  maximized: PaneId | undefined;
  onMaximize: (pane: PaneId) => void;
}) {
  const columns = useDefaultLayout({ id: "ide-columns", storage: localStorage, onlySaveAfterUserInteractions: true });
  const center = useDefaultLayout({ id: "ide-center", storage: localStorage, onlySaveAfterUserInteractions: true });
  const centerGroup = useGroupRef();
  // The split the person last chose with a file open, given back when one opens again.
  const withFiles = useRef<Layout | undefined>(center.defaultLayout);
  useEffect(() => {
    centerGroup.current?.setLayout(hasOpenFiles ? (withFiles.current ?? DEFAULT_CENTER) : COMPACT_EDITOR);
  }, [hasOpenFiles, centerGroup]);
  const pane = (id: PaneId) => (
    <Pane id={id} maximized={maximized === id} onMaximize={() => onMaximize(id)}>
      {panes[id]}
    </Pane>
  );
  return (
    <Group
      className={`ide-body${maximized ? " has-maximized" : ""}`}
      orientation="horizontal"
      defaultLayout={columns.defaultLayout}
      onLayoutChanged={columns.onLayoutChanged}
    >
      <Panel id="files" defaultSize="18" minSize="10">
        {pane("files")}
      </Panel>
      <Separator className="separator separator-vertical" />
      <Panel id="center" defaultSize="52" minSize="25">
        <Group
          orientation="vertical"
          groupRef={centerGroup}
          defaultLayout={hasOpenFiles ? withFiles.current : COMPACT_EDITOR}
          onLayoutChanged={(layout, meta) => {
            if (hasOpenFiles && meta.isUserInteraction) withFiles.current = layout;
            center.onLayoutChanged(layout, meta);
          }}
        >
          <Panel id="editor" defaultSize="60" minSize="15">
            {pane("editor")}
          </Panel>
          <Separator className="separator separator-horizontal" />
          <Panel id="terminal" defaultSize="40" minSize="10">
            {pane("terminal")}
          </Panel>
        </Group>
      </Panel>
      <Separator className="separator separator-vertical" />
      <Panel id="preview" defaultSize="30" minSize="10">
        {pane("preview")}
      </Panel>
    </Group>
  );
}
