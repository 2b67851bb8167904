import type { AgentTokenInfo } from "../../protocol/agents";
import { useNow } from "../hooks/useNow";
import { ago } from "../time";

/** The live tokens, with last use and a Revoke button (it ends the token's calls at once). */
export function TokenList({ tokens, onRevoke }: { tokens?: AgentTokenInfo[]; onRevoke: (id: string) => void }) {
  const now = useNow(30_000);
  return (
    <section className="agents-section" data-testid="agent-tokens">
      <h3>Tokens</h3>
      {!tokens ? (
        <p className="agents-note">Loading…</p>
      ) : tokens.length === 0 ? (
        <p className="agents-note">No agent tokens: no agent can reach this workspace.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Scope</th>
              <th>Last used</th>
              <th>Expires</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id} data-testid="agent-token-row" data-name={t.name}>
                <td>{t.name}</td>
                <td>{t.scope}</td>
                <td data-testid="agent-token-last-used">
                  {t.lastUsedAt ? ago(now - Date.parse(t.lastUsedAt)) : "never"}
                </td>
                <td title={t.expiresAt}>{new Date(t.expiresAt).toLocaleDateString()}</td>
                <td>
                  <button
                    type="button"
                    data-testid="agent-token-revoke"
                    onClick={() => {
                      if (window.confirm(`Revoke ${t.name}? Agents using it lose access at once.`)) onRevoke(t.id);
                    }}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
