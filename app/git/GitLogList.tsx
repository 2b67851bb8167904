import { useState } from "react";
import type { GitCommit } from "../../protocol/git";
import { useNow } from "../hooks/useNow";
import { ago } from "../time";

/** The latest commits of the branch, folded away until asked for. */
export function GitLogList({ log }: { log: readonly GitCommit[] }) {
  const [open, setOpen] = useState(true);
  const now = useNow(30_000);
  return (
    <div className="git-log" data-testid="git-log">
      <button type="button" className="git-log-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? "▾" : "▸"} Recent commits
      </button>
      {open &&
        (log.length === 0 ? (
          <p className="placeholder">No commits yet.</p>
        ) : (
          <ul>
            {log.map((c) => (
              <li key={c.oid} data-testid="git-log-entry" title={`${c.oid}\n${c.author} <${c.email}>\n${c.date}`}>
                <code>{c.shortOid}</code> <span className="git-log-subject">{c.subject}</span>
                <span className="git-log-meta">
                  {c.author}, {ago(now - Date.parse(c.date))}
                </span>
              </li>
            ))}
          </ul>
        ))}
    </div>
  );
}
