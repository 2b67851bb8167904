import { type FormEvent, useState } from "react";
import { checkSecret, isSecretName, type NetworkMode, type SecretInfo } from "../../protocol/network";

interface Props {
  secrets: SecretInfo[];
  mode: NetworkMode;
  onSave: (name: string, secret: { value: string; hosts: string[]; header: string }) => Promise<boolean>;
  onDelete: (name: string) => Promise<boolean>;
}

/**
 * Secrets by name: the hosts and header each is for, never the value. A new
 * one (or a new value for an existing name) is typed in once and never shown again.
 */
export function SecretList({ secrets, mode, onSave, onDelete }: Props) {
  const [form, setForm] = useState({ name: "", hosts: "", header: "Authorization", value: "" });
  const [problem, setProblem] = useState<string>();
  const field = (key: keyof typeof form) => ({
    value: form[key],
    onChange: (event: { target: { value: string } }) => setForm({ ...form, [key]: event.target.value }),
  });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const hosts = form.hosts.split(/[\s,]+/).filter(Boolean);
    const checked = checkSecret({ value: form.value, hosts, header: form.header });
    const reason = !isSecretName(form.name)
      ? "a name is 1-64 letters, digits, '.', '_' or '-'"
      : checked.ok
        ? undefined
        : checked.reason;
    setProblem(reason);
    if (reason || !checked.ok) return;
    if (await onSave(form.name, checked.value)) setForm({ name: "", hosts: "", header: "Authorization", value: "" });
  };

  return (
    <section className="network-section" data-testid="secret-list">
      <h3>Secrets</h3>
      <p className="network-note">
        Added by the IDE to HTTPS requests to their hosts; never stored in the workspace.
        {mode !== "allowlist" && " Only used in the allow list mode."}
      </p>
      <ul className="network-secrets">
        {secrets.map((s) => (
          <li key={s.name} data-testid="secret" data-name={s.name}>
            <strong>{s.name}</strong> <code>{s.header}</code> → {s.hosts.join(", ")}
            <button
              type="button"
              className="link"
              aria-label={`Delete ${s.name}`}
              onClick={() => void onDelete(s.name)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <form className="network-secret-form" onSubmit={(event) => void submit(event)} autoComplete="off">
        <input {...field("name")} placeholder="name" aria-label="Secret name" />
        <input {...field("hosts")} placeholder="hosts (github.com, *.example.com)" aria-label="Secret hosts" />
        <input {...field("header")} placeholder="header" aria-label="Header" />
        <input {...field("value")} type="password" placeholder="value (Bearer …)" aria-label="Secret value" />
        <button type="submit" disabled={!form.name || !form.value}>
          Save secret
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
