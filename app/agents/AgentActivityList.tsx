import type { AgentActivityEntry } from "../../protocol/agents";

const time = (at: number) => new Date(at).toLocaleTimeString(undefined, { hour12: false });

/** What agents did here, newest first, as it happens: time, token, tool, arguments, outcome. */
export function AgentActivityList({ entries }: { entries: AgentActivityEntry[] }) {
  return (
    <section className="agents-section agents-activity" data-testid="agent-activity">
      <h3>Agent activity</h3>
      {entries.length === 0 ? (
        <p className="agents-note">Each tool call an agent makes shows here as it happens.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Time</th>
              <th>Token</th>
              <th>Tool</th>
              <th>Arguments</th>
              <th>Result</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id} data-testid="agent-activity-row" data-tool={e.tool} data-outcome={e.outcome}>
                <td>{time(e.at)}</td>
                <td>{e.tokenName}</td>
                <td>{e.tool}</td>
                <td className="agents-args" title={e.summary}>
                  {e.summary}
                </td>
                <td className={`agents-outcome-${e.outcome}`} title={e.message}>
                  {e.outcome === "ok" ? `ok, ${e.ms} ms` : e.outcome}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
