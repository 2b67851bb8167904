import { PANE_TITLES, Pane, type PaneId } from "./Pane";

const ORDER: PaneId[] = ["files", "editor", "terminal", "preview"];

/** Phones and tablets: one pane at a time, chosen by tabs; the others stay alive, hidden. */
export function TabbedLayout({
  panes,
  active,
  onActivate,
}: {
  panes: Record<PaneId, React.ReactNode>;
  active: PaneId;
  onActivate: (pane: PaneId) => void;
}) {
  return (
    <div className="ide-tabbed">
      <div className="pane-tabs" role="tablist" aria-label="Panes">
        {ORDER.map((id) => (
          <button
            key={id}
            type="button"
            role="tab"
            aria-selected={id === active}
            data-testid={`pane-tab-${id}`}
            onClick={() => onActivate(id)}
          >
            {PANE_TITLES[id]}
          </button>
        ))}
      </div>
      {ORDER.map((id) => (
        <Pane key={id} id={id} hidden={id !== active}>
          {panes[id]}
        </Pane>
      ))}
    </div>
  );
}
