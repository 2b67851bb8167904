import { useState } from "react";
import type { AgentScope } from "../../protocol/agents";

const EXPIRIES: { label: string; seconds: number }[] = [
  { label: "1 hour", seconds: 3600 },
  { label: "1 day", seconds: 86_400 },
  { label: "7 days", seconds: 7 * 86_400 },
  { label: "30 days", seconds: 30 * 86_400 },
  { label: "90 days", seconds: 90 * 86_400 },
];

interface Props {
  disabled: boolean;
  onCreate: (name: string, scope: AgentScope, ttlSeconds: number) => Promise<boolean>;
}

/** A new token: its name, its scope and when it expires. */
export function TokenForm({ disabled, onCreate }: Props) {
  const [name, setName] = useState("");
  const [scope, setScope] = useState<AgentScope>("read");
  const [ttl, setTtl] = useState(86_400);
  return (
    <form
      className="agents-form"
      data-testid="agent-token-form"
      onSubmit={(event) => {
        event.preventDefault();
        void onCreate(name.trim(), scope, ttl).then((ok) => ok && setName(""));
      }}
    >
      <h3>New token</h3>
      <label>
        Name
        <input
          value={name}
          required
          maxLength={64}
          placeholder="claude-code-laptop"
          data-testid="agent-token-name"
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <label>
        Scope
        <select value={scope} data-testid="agent-token-scope" onChange={(e) => setScope(e.target.value as AgentScope)}>
          <option value="read">read: files, search, git, terminal output, previews</option>
          <option value="write">write: also edit files, run commands, type in terminals</option>
        </select>
      </label>
      <label>
        Expires in
        <select value={ttl} data-testid="agent-token-ttl" onChange={(e) => setTtl(Number(e.target.value))}>
          {EXPIRIES.map((e) => (
            <option key={e.seconds} value={e.seconds}>
              {e.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={disabled || name.trim() === ""} data-testid="agent-token-create">
        Create token
      </button>
    </form>
  );
}
