import { type FormEvent, useCallback, useEffect, useState } from "react";
import type { CreatedToken, SshKeySummary, TokenSummary } from "../../protocol/access";
import { accessApi } from "../api/access";
import { useAction } from "../hooks/useAction";
import "./access.css";

const LIFETIMES = [
  { label: "7 days", seconds: 7 * 86400 },
  { label: "30 days", seconds: 30 * 86400 },
  { label: "90 days", seconds: 90 * 86400 },
  { label: "1 year", seconds: 365 * 86400 },
];

/**
 * `/tokens`: the person's personal access tokens (for the command line,
 * `cloud-ide`, and ssh) and their SSH public keys. A new token's secret is
 * shown once; revoking one closes what it opened.
 */
export function TokensPage() {
  const [tokens, setTokens] = useState<TokenSummary[]>();
  const [keys, setKeys] = useState<SshKeySummary[]>();
  const [created, setCreated] = useState<CreatedToken>();
  const action = useAction();
  const load = useCallback(async () => {
    const [t, k] = await Promise.all([accessApi.tokens(), accessApi.keys()]);
    setTokens(t);
    setKeys(k);
  }, []);
  useEffect(() => {
    void action.run(load);
  }, [action.run, load]);

  return (
    <main className="access-page" data-testid="tokens-page">
      <h1>Tokens and SSH keys</h1>
      {action.error && (
        <p role="alert" className="access-error">
          {action.error}
        </p>
      )}
      <section aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Personal access tokens</h2>
        <p className="access-hint">
          For <code>cloud-ide</code> (<code>CLOUD_IDE_TOKEN</code>) and ssh through the IDE. A token lists your
          workspaces and opens ssh tunnels; it cannot make tokens or change members.
        </p>
        <TokenForm
          busy={action.busy !== undefined}
          onCreate={(name, ttlSeconds) =>
            action.run(async () => {
              setCreated(await accessApi.createToken({ name, ttlSeconds }));
              await load();
            }, "Creating")
          }
        />
        {created && (
          <div className="access-secret" role="status" data-testid="new-token">
            <p>
              Copy the token <strong>{created.name}</strong> now: it is not shown again.
            </p>
            <input readOnly value={created.token} aria-label="New token" onFocus={(e) => e.currentTarget.select()} />
            <button type="button" onClick={() => void navigator.clipboard?.writeText(created.token)}>
              Copy
            </button>
            <button type="button" onClick={() => setCreated(undefined)}>
              Done
            </button>
          </div>
        )}
        <ul className="access-list" aria-label="Tokens">
          {tokens?.length === 0 && <li className="access-empty">No tokens.</li>}
          {tokens?.map((t) => (
            <li key={t.id} data-testid="token">
              <span className="access-name">{t.name}</span>
              <span className="access-meta">
                expires {new Date(t.expiresAt).toLocaleDateString()}
                {t.lastUsedAt ? `, last used ${new Date(t.lastUsedAt).toLocaleString()}` : ", never used"}
              </span>
              <button
                type="button"
                className="danger"
                onClick={() =>
                  void action.run(async () => {
                    await accessApi.revokeToken(t.id);
                    await load();
                  }, "Revoking")
                }
              >
                Revoke {t.name}
              </button>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">SSH keys</h2>
        <p className="access-hint">
          Keys that may open a shell in your workspaces (and those shared with you as an editor): ed25519, ECDSA, or RSA
          of 3072 bits or more. <code>cloud-ide ssh</code> registers its own.
        </p>
        <KeyForm
          busy={action.busy !== undefined}
          onAdd={(name, publicKey) =>
            action.run(async () => {
              await accessApi.addKey({ name, publicKey });
              await load();
            }, "Adding")
          }
        />
        <ul className="access-list" aria-label="SSH keys">
          {keys?.length === 0 && <li className="access-empty">No SSH keys.</li>}
          {keys?.map((k) => (
            <li key={k.id} data-testid="ssh-key">
              <span className="access-name">{k.name}</span>
              <span className="access-meta">
                {k.type} <code>{k.fingerprint}</code>
              </span>
              <button
                type="button"
                className="danger"
                onClick={() =>
                  void action.run(async () => {
                    await accessApi.removeKey(k.id);
                    await load();
                  }, "Removing")
                }
              >
                Remove {k.name}
              </button>
            </li>
          ))}
        </ul>
      </section>
      <p>
        <a href="/">Back to your workspaces</a>
      </p>
    </main>
  );
}

function TokenForm({ busy, onCreate }: { busy: boolean; onCreate: (name: string, ttl: number) => Promise<boolean> }) {
  const [name, setName] = useState("");
  const [ttl, setTtl] = useState(LIFETIMES[1]?.seconds ?? 2592000);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await onCreate(name, ttl)) setName("");
  };
  return (
    <form className="access-form" onSubmit={(e) => void submit(e)}>
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="laptop" required maxLength={100} />
      </label>
      <label>
        Expires after
        <select value={ttl} onChange={(e) => setTtl(Number(e.target.value))}>
          {LIFETIMES.map((l) => (
            <option key={l.seconds} value={l.seconds}>
              {l.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={busy}>
        Create token
      </button>
    </form>
  );
}

function KeyForm({ busy, onAdd }: { busy: boolean; onAdd: (name: string, key: string) => Promise<boolean> }) {
  const [name, setName] = useState("");
  const [key, setKey] = useState("");
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await onAdd(name, key)) {
      setName("");
      setKey("");
    }
  };
  return (
    <form className="access-form" onSubmit={(e) => void submit(e)}>
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="laptop" required maxLength={100} />
      </label>
      <label className="access-key">
        Public key
        <textarea
          value={key}
          onChange={(e) => setKey(e.target.value)}
          placeholder="ssh-ed25519 AAAA… you@laptop"
          required
          rows={3}
        />
      </label>
      <button type="submit" disabled={busy}>
        Add key
      </button>
    </form>
  );
}
