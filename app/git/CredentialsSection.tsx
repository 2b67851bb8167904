import { type FormEvent, useState, useSyncExternalStore } from "react";
import { useAction } from "../hooks/useAction";
import type { GitCredentialsModel } from "./git-credentials-model";

const UNUSED = {
  open: "not used: the network is open, so nothing passes through the IDE",
  "not-allowed": "not used: the host is not on the network allow list",
} as const;

/**
 * Tokens for pulling and pushing over HTTPS: pasted, or from GitHub's
 * device sign-in. Each is kept by the IDE (a network secret of the
 * workspace) and added to that host's requests on the way out: it never
 * enters the container, `.git/config`, the files or an export.
 */
export function CredentialsSection({ model }: { model: GitCredentialsModel }) {
  const [open, setOpen] = useState(false);
  const [host, setHost] = useState("github.com");
  const [token, setToken] = useState("");
  const action = useAction();
  const { hosts, signIn, githubSignIn } = useSyncExternalStore(model.subscribe, model.getSnapshot);
  const save = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      await model.setToken(host, token);
      setToken("");
    }, "Saving…");
  };
  return (
    <div className="git-credentials" data-testid="git-credentials">
      <button type="button" className="git-log-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? "▾" : "▸"} HTTPS credentials {hosts.length > 0 && `(${hosts.length})`}
      </button>
      {open && (
        <>
          {action.error && (
            <p className="git-credentials-error" role="alert">
              {action.error}
            </p>
          )}
          <ul>
            {hosts.map((h) => (
              <li key={h.host} data-testid="git-credential" data-host={h.host}>
                <span className="git-credential-host">{h.host}</span>
                {h.unused && <span className="git-credential-unused">{UNUSED[h.unused]}</span>}
                {h.unused === "not-allowed" && (
                  <button type="button" onClick={() => void action.run(() => model.allow(h.host))}>
                    Allow
                  </button>
                )}
                <button type="button" onClick={() => void action.run(() => model.remove(h.host))}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
          <form className="git-new-branch" onSubmit={save}>
            <input
              aria-label="Git host"
              data-testid="git-credential-host"
              value={host}
              onChange={(e) => setHost(e.target.value)}
            />
            <input
              aria-label="Token"
              data-testid="git-credential-token"
              type="password"
              autoComplete="off"
              placeholder="token"
              value={token}
              onChange={(e) => setToken(e.target.value)}
            />
            <button type="submit" data-testid="git-credential-save" disabled={!host.trim() || !token.trim()}>
              Save
            </button>
          </form>
          {githubSignIn &&
            (signIn ? (
              <p className="git-github-code" data-testid="git-github-code" role="status">
                Enter <strong>{signIn.userCode}</strong> at{" "}
                <a href={signIn.verificationUri} target="_blank" rel="noreferrer">
                  {signIn.verificationUri}
                </a>
              </p>
            ) : (
              <button
                type="button"
                data-testid="git-github-sign-in"
                onClick={() =>
                  void action.run(async () => {
                    const outcome = await model.signInWithGitHub();
                    if (outcome !== "done")
                      throw new Error(`GitHub sign-in ${outcome === "denied" ? "was refused" : "expired"}: try again.`);
                  })
                }
              >
                Sign in with GitHub
              </button>
            ))}
        </>
      )}
    </div>
  );
}
