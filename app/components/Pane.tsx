import type { ReactNode } from "react";

export type PaneId = "files" | "editor" | "terminal" | "preview";

export const PANE_TITLES: Record<PaneId, string> = {
  files: "Files",
  editor: "Editor",
  terminal: "Terminal",
  preview: "Preview",
};

/** A titled pane; with `onMaximize`, its title bar has a button to fill the window (and back). */
export function Pane({
  id,
  maximized = false,
  onMaximize,
  hidden = false,
  children,
}: {
  id: PaneId;
  maximized?: boolean;
  onMaximize?: () => void;
  hidden?: boolean;
  children: ReactNode;
}) {
  const title = PANE_TITLES[id];
  return (
    <section
      className={`pane${maximized ? " maximized" : ""}`}
      data-testid={`pane-${id}`}
      data-pane={id}
      aria-label={title}
      hidden={hidden}
    >
      <div className="pane-title-bar">
        <h2 className="pane-title">{title}</h2>
        {onMaximize && (
          <button
            type="button"
            className="pane-maximize"
            data-testid={`maximize-${id}`}
            aria-pressed={maximized}
            aria-label={maximized ? `Restore the ${title} pane` : `Maximize the ${title} pane`}
            title={`${maximized ? "Restore" : "Maximize"} (Ctrl+Shift+Enter)`}
            onClick={onMaximize}
          >
            <span aria-hidden="true">{maximized ? "⤡" : "⤢"}</span>
            <span className="label">{maximized ? "Restore" : "Maximize"}</span>
          </button>
        )}
      </div>
      <div className="pane-body">{children}</div>
    </section>
  );
}
