import { type FormEvent, useState } from "react";
import { checkHostPattern } from "../../protocol/network";

interface Props {
  allow: string[];
  /** False outside the allowlist mode: the list is kept, but not used. */
  inUse: boolean;
  onAdd: (host: string) => Promise<boolean>;
  onRemove: (host: string) => Promise<boolean>;
}

/** The allowed hosts: exact names and *.suffix patterns, checked as they are typed in. */
export function AllowList({ allow, inUse, onAdd, onRemove }: Props) {
  const [draft, setDraft] = useState("");
  const [problem, setProblem] = useState<string>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = checkHostPattern(draft);
    if (!checked.ok) {
      setProblem(checked.reason);
      return;
    }
    setProblem(undefined);
    if (await onAdd(checked.value)) setDraft("");
  };

  return (
    <section className="network-section" data-testid="allow-list">
      <h3>Allowed hosts</h3>
      {!inUse && <p className="network-note">Kept for the allow list mode; not used in this mode.</p>}
      <ul className="network-hosts">
        {allow.map((host) => (
          <li key={host} data-testid="allowed-host" data-host={host}>
            <code>{host}</code>
            <button type="button" className="link" aria-label={`Remove ${host}`} onClick={() => void onRemove(host)}>
              ×
            </button>
          </li>
        ))}
        {allow.length === 0 && <li className="network-note">No host is allowed.</li>}
      </ul>
      <form className="network-add" onSubmit={(event) => void submit(event)}>
        <input
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder="example.com or *.example.com"
          aria-label="Host to allow"
          data-testid="allow-input"
          spellCheck={false}
          autoCapitalize="off"
        />
        <button type="submit" disabled={draft.trim() === ""}>
          Allow
        </button>
      </form>
      {problem && (
        <p className="network-error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
