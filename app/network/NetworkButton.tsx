import { useState } from "react";
import type { WorkspaceApi } from "../api/workspace";
import { useRegisterCommands } from "../commands/useCommands";
import { MODE_LABELS } from "./modes";
import { NetworkPanel } from "./NetworkPanel";
import { useNetwork } from "./useNetwork";
import "./network.css";

/** The header's Network button (its dot shows the mode) and the panel it opens. */
export function NetworkButton({ api }: { api: WorkspaceApi }) {
  const [open, setOpen] = useState(false);
  const { model, view } = useNetwork(api.network, open);
  useRegisterCommands(
    () => [
      {
        id: "network.toggle",
        title: "Network: where this workspace may connect",
        run: () => setOpen((shown) => !shown),
      },
    ],
    [],
  );
  const mode = view.settings?.mode;
  return (
    <span className="network-menu">
      <button
        type="button"
        data-testid="network-button"
        data-mode={mode}
        aria-expanded={open}
        title={mode ? `Network: ${MODE_LABELS[mode].title}` : "Network"}
        aria-label="Network"
        onClick={() => setOpen(!open)}
      >
        <span className="network-dot" aria-hidden="true" />
        <span className="label">Network</span>
      </button>
      {open && <NetworkPanel model={model} view={view} onClose={() => setOpen(false)} />}
    </span>
  );
}
