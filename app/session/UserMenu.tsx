import { useCallback, useState } from "react";
import type { SessionSummary } from "../../protocol/session";
import { errorMessage } from "../api/http";
import { sessionApi } from "../api/session";
import "./user-menu.css";

/**
 * Who is signed in, sign-out, and the user's active sessions: each with its
 * browser, when it began and was last used; any other one can be ended, and
 * "Sign out everywhere" ends them all (this one too).
 */
export function UserMenu({
  userId,
  onSignOut,
  guest = false,
}: {
  userId: string;
  onSignOut: (everywhere: boolean) => void;
  /** A guest has no tokens or SSH keys. */
  guest?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [sessions, setSessions] = useState<SessionSummary[] | undefined>();
  const [error, setError] = useState<string | undefined>();

  const load = useCallback(async () => {
    try {
      setSessions(await sessionApi.list());
      setError(undefined);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }, []);

  const end = async (id: string) => {
    try {
      await sessionApi.end(id);
    } catch (failure) {
      setError(errorMessage(failure));
    }
    await load();
  };

  return (
    <span className="user-menu">
      <span className="user-id" data-testid="user-id" title="Signed in as">
        {userId}
      </span>
      <button
        type="button"
        aria-expanded={open}
        onClick={() => {
          setOpen(!open);
          if (!open) void load();
        }}
      >
        Sessions
      </button>
      {!guest && (
        <a className="user-menu-link" href="/tokens">
          Tokens
        </a>
      )}
      <button type="button" onClick={() => onSignOut(false)}>
        Sign out
      </button>
      {open && (
        <div className="session-list" role="dialog" aria-label="Active sessions" data-testid="session-list">
          {error && <p role="alert">{error}</p>}
          {!sessions && !error && <p>Loading…</p>}
          <ul>
            {sessions?.map((s) => (
              <li key={s.id} data-testid="session" data-current={s.current}>
                <span className="session-agent" title={s.userAgent}>
                  {describeAgent(s.userAgent)}
                  {s.via === "access" ? " (Cloudflare Access)" : ""}
                </span>
                <span className="session-times">
                  signed in {when(s.createdAt)}, last used {when(s.lastUsedAt)}
                </span>
                {s.current ? (
                  <span className="session-current">this browser</span>
                ) : (
                  <button type="button" onClick={() => void end(s.id)}>
                    End
                  </button>
                )}
              </li>
            ))}
          </ul>
          <button type="button" className="danger" onClick={() => onSignOut(true)}>
            Sign out everywhere
          </button>
        </div>
      )}
    </span>
  );
}

/** "Firefox on Linux"-like from a User-Agent, or the raw string when it is unusual. */
function describeAgent(agent: string): string {
  if (!agent) return "Unknown browser";
  const browser = /Edg\//.test(agent)
    ? "Edge"
    : /Firefox\//.test(agent)
      ? "Firefox"
      : /Chrome\//.test(agent)
        ? "Chrome"
        : /Safari\//.test(agent)
          ? "Safari"
          : undefined;
  const system = /Windows/.test(agent)
    ? "Windows"
    : /Mac OS X|Macintosh/.test(agent)
      ? "macOS"
      : /Android/.test(agent)
        ? "Android"
        : /iPhone|iPad/.test(agent)
          ? "iOS"
          : /Linux/.test(agent)
            ? "Linux"
            : undefined;
  return browser && system ? `${browser} on ${system}` : agent.slice(0, 60);
}

function when(at: number): string {
  const minutes = Math.round((Date.now() - at) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
}
