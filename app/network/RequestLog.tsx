import { matchesAny, type NetworkMode } from "../../protocol/network";
import type { NetworkView } from "./network-model";

interface Props {
  view: NetworkView;
  mode: NetworkMode;
  allow: string[];
  onAllow: (host: string) => Promise<boolean>;
}

const time = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour12: false });

/** The workspace's latest outbound requests, newest first, each blocked one with a button to allow its host. */
export function RequestLog({ view, mode, allow, onAllow }: Props) {
  const empty =
    mode === "open" && !view.intercepting
      ? "Nothing is intercepted in the open mode: requests go straight to the Internet, so none are logged."
      : "Each HTTP and HTTPS request the workspace makes shows here while it runs.";
  return (
    <section className="network-section network-log" data-testid="request-log">
      <h3>Requests</h3>
      {view.entries.length === 0 ? (
        <p className="network-note" data-testid="request-log-empty">
          {empty}
        </p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Time</th>
              <th>Method</th>
              <th>Host</th>
              <th>Result</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {view.entries.map((entry) => (
              <tr key={entry.id} data-testid="log-row" data-host={entry.host} data-verdict={entry.verdict}>
                <td>{time(entry.at)}</td>
                <td>{entry.method}</td>
                <td title={`${entry.scheme}://${entry.host}${entry.path}`}>
                  {entry.host}
                  {entry.secrets.length > 0 && <span className="network-note"> + {entry.secrets.join(", ")}</span>}
                </td>
                <td className={`verdict-${entry.verdict}`} title={entry.error}>
                  {entry.verdict === "blocked" ? "blocked" : (entry.status ?? (entry.error ? "failed" : "…"))}
                </td>
                <td>
                  {entry.verdict === "blocked" && mode === "allowlist" && !matchesAny(allow, entry.host) && (
                    <button type="button" data-testid="allow-blocked" onClick={() => void onAllow(entry.host)}>
                      Allow
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
