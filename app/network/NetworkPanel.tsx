import { ErrorCode } from "../../protocol/errors";
import { NETWORK_MODES, type NetworkMode } from "../../protocol/network";
import { ApiRequestError } from "../api/http";
import { useAction } from "../hooks/useAction";
import { AllowList } from "./AllowList";
import { MODE_LABELS } from "./modes";
import type { NetworkModel, NetworkView } from "./network-model";
import { RequestLog } from "./RequestLog";
import { SecretList } from "./SecretList";

interface Props {
  model: NetworkModel;
  view: NetworkView;
  onClose: () => void;
}

/**
 * Where the workspace may connect: the mode, the allowed hosts, the secrets
 * (by name) and the live log of its requests, with a one-click allow for a
 * blocked host.
 */
export function NetworkPanel({ model, view, onClose }: Props) {
  const action = useAction();
  const settings = view.settings;

  const changeMode = (mode: NetworkMode) =>
    action.run(async () => {
      try {
        await model.setMode(mode);
      } catch (error) {
        if (!(error instanceof ApiRequestError && error.code === ErrorCode.RESTART_REQUIRED)) throw error;
        if (!window.confirm(`${error.message}\n\nRestart the workspace now?`)) return;
        await model.setMode(mode, true);
      }
    }, "Saving…");

  return (
    <aside
      className="floating-panel tall network-panel"
      role="dialog"
      aria-label="Network"
      data-testid="network-panel"
      onKeyDown={(event) => {
        if (event.key === "Escape") onClose();
      }}
    >
      <header>
        <h2>Network</h2>
        {action.busy && <span className="network-busy">{action.busy}</span>}
        <button type="button" className="link" onClick={onClose} aria-label="Close the network panel">
          ×
        </button>
      </header>
      {(action.error ?? view.error) && (
        <p className="network-error" role="alert" data-testid="network-error">
          {action.error ?? view.error}
        </p>
      )}
      {!settings ? (
        <p>Loading…</p>
      ) : (
        <>
          <fieldset className="network-modes" disabled={Boolean(action.busy)}>
            <legend>Mode</legend>
            {NETWORK_MODES.map((mode) => (
              <label key={mode} title={MODE_LABELS[mode].detail}>
                <input
                  type="radio"
                  name="network-mode"
                  value={mode}
                  data-testid={`network-mode-${mode}`}
                  checked={settings.mode === mode}
                  disabled={mode === "open" && !settings.openAvailable}
                  onChange={() => void changeMode(mode)}
                />
                {MODE_LABELS[mode].title}
              </label>
            ))}
            <p className="network-note">{MODE_LABELS[settings.mode].detail}</p>
          </fieldset>
          <AllowList
            allow={settings.allow}
            inUse={settings.mode === "allowlist"}
            onAdd={(host) => action.run(() => model.allow(host), "Saving…")}
            onRemove={(host) => action.run(() => model.disallow(host), "Saving…")}
          />
          <SecretList
            secrets={settings.secrets}
            mode={settings.mode}
            onSave={(name, secret) => action.run(() => model.putSecret(name, secret), "Saving…")}
            onDelete={(name) => action.run(() => model.deleteSecret(name), "Deleting…")}
          />
          <RequestLog
            view={view}
            mode={settings.mode}
            allow={settings.allow}
            onAllow={(host) => action.run(() => model.allow(host), "Saving…")}
          />
        </>
      )}
    </aside>
  );
}
