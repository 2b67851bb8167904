import { type FormEvent, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import type { MemberRole } from "../../protocol/members";
import { useAction } from "../hooks/useAction";
import type { MembersApi } from "./members-api";
import { MembersModel } from "./members-model";
import "./members.css";

const LIFETIMES = [
  { label: "1 hour", seconds: 3600 },
  { label: "1 day", seconds: 86_400 },
  { label: "7 days", seconds: 7 * 86_400 },
];

/** The header's Share button (the owner's): invite links, and the people who joined. */
export function ShareButton({ api }: { api: MembersApi }) {
  const [open, setOpen] = useState(false);
  return (
    <span className="share-menu">
      <button
        type="button"
        data-testid="share-button"
        aria-label="Share"
        title="Share this workspace"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <span aria-hidden="true">⇪</span>
        <span className="label"> Share</span>
      </button>
      {open && <SharePanel api={api} onClose={() => setOpen(false)} />}
    </span>
  );
}

function SharePanel({ api, onClose }: { api: MembersApi; onClose: () => void }) {
  const model = useMemo(() => new MembersModel(api), [api]);
  const view = useSyncExternalStore(model.subscribe, model.getSnapshot);
  const action = useAction();
  const [role, setRole] = useState<MemberRole>("viewer");
  const [ttlSeconds, setTtl] = useState(86_400);
  const [singleUse, setSingleUse] = useState(true);
  useEffect(() => void model.refresh(), [model]);

  const invite = (event: FormEvent) => {
    event.preventDefault();
    void action.run(() => model.invite({ role, ttlSeconds, ...(singleUse ? { uses: 1 } : {}) }), "Making a link…");
  };

  return (
    <aside
      className="floating-panel members-panel"
      role="dialog"
      aria-label="Share"
      data-testid="share-panel"
      onKeyDown={(event) => {
        if (event.key === "Escape") onClose();
      }}
    >
      <header>
        <h2>Share this workspace</h2>
        <button type="button" className="link" onClick={onClose} aria-label="Close the share panel">
          ×
        </button>
      </header>
      {(action.error ?? view.error) && (
        <p className="form-error" role="alert">
          {action.error ?? view.error}
        </p>
      )}
      <form className="members-invite" onSubmit={invite}>
        <h3>Invite link</h3>
        <label>
          Role{" "}
          <select aria-label="Invite role" value={role} onChange={(e) => setRole(e.target.value as MemberRole)}>
            <option value="viewer">Viewer: looks, changes nothing</option>
            <option value="editor">Editor: changes files, uses terminals</option>
          </select>
        </label>
        <label>
          Expires in{" "}
          <select aria-label="Invite lifetime" value={ttlSeconds} onChange={(e) => setTtl(Number(e.target.value))}>
            {LIFETIMES.map((lifetime) => (
              <option key={lifetime.seconds} value={lifetime.seconds}>
                {lifetime.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input type="checkbox" checked={singleUse} onChange={(e) => setSingleUse(e.target.checked)} /> One person only
        </label>
        <button type="submit" disabled={action.busy !== undefined}>
          {action.busy ?? "Make an invite link"}
        </button>
      </form>
      {view.created && (
        <p className="members-created">
          Send this link (it is shown once):{" "}
          <input
            readOnly
            aria-label="Invite link"
            data-testid="invite-url"
            value={view.created.url}
            onFocus={(e) => e.target.select()}
          />
          <button type="button" onClick={() => void navigator.clipboard?.writeText(view.created?.url ?? "")}>
            Copy
          </button>
        </p>
      )}
      <h3>Live links</h3>
      {view.invites?.length ? (
        <ul className="members-list" data-testid="invite-list">
          {view.invites.map((i) => (
            <li key={i.id}>
              {i.role}, {i.uses === null ? `used ${i.used} times` : `used ${i.used} of ${i.uses}`}, expires{" "}
              {new Date(i.expiresAt).toLocaleString()}{" "}
              <button type="button" onClick={() => void action.run(() => model.revoke(i.id))}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="placeholder">None.</p>
      )}
      <h3>People</h3>
      {view.members?.length ? (
        <ul className="members-list" data-testid="member-list">
          {view.members.map((m) => (
            <li key={m.id} data-testid="member">
              <span className="member-name">{m.name}</span> ({m.kind === "guest" ? "guest" : m.id}){" "}
              <select
                aria-label={`Role of ${m.name}`}
                value={m.role}
                onChange={(e) => void action.run(() => model.setRole(m.id, e.target.value as MemberRole))}
              >
                <option value="viewer">viewer</option>
                <option value="editor">editor</option>
              </select>{" "}
              <button type="button" onClick={() => void action.run(() => model.remove(m.id))}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="placeholder">Nobody else yet.</p>
      )}
    </aside>
  );
}
