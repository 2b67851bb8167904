import { type FormEvent, useEffect, useState } from "react";
import { DISPLAY_NAME_MAX_LENGTH, type InviteInfo } from "../../protocol/members";
import { errorMessage } from "../api/http";
import { useAction } from "../hooks/useAction";
import { invitesApi } from "./members-api";

/**
 * `/join/{workspace}#{token}`: an invite link. Says what it is for, asks the
 * visitor for the name the others will see, and signs them in as a guest of
 * that workspace (a Cloudflare Access user joins as themselves).
 */
export function JoinPage({
  workspace,
  token,
  signedInAs,
  onJoined,
}: {
  workspace: string;
  token: string;
  /** Who is signed in already, if anyone (an Access user's email). */
  signedInAs?: string;
  onJoined: (workspace: string) => void;
}) {
  const [info, setInfo] = useState<InviteInfo>();
  const [problem, setProblem] = useState<string>();
  const [name, setName] = useState("");
  const action = useAction();

  useEffect(() => {
    invitesApi
      .check(workspace, token)
      .then(setInfo)
      .catch((error) => setProblem(errorMessage(error)));
  }, [workspace, token]);

  const join = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      const joined = await invitesApi.accept(workspace, token, name);
      onJoined(joined.workspace);
    }, "Joining…");
  };

  return (
    <main className="sign-in" data-testid="join">
      <div className="sign-in-form">
        <h1>Cloud IDE</h1>
        {problem ? (
          <p className="form-error" role="alert" data-testid="join-problem">
            {problem}
          </p>
        ) : !info ? (
          <p className="placeholder">Checking the invite…</p>
        ) : (
          <form onSubmit={join} className="sign-in-form">
            <p data-testid="join-invitation">
              You are invited to <strong>{info.workspaceName}</strong> as{" "}
              {info.role === "editor"
                ? "an editor (you can change files and use its terminals)"
                : "a viewer (you can look, not change)"}
              .
            </p>
            {signedInAs ? (
              <p>You join as {signedInAs}.</p>
            ) : (
              <>
                <label htmlFor="join-name">Your name (the others see it)</label>
                <input
                  id="join-name"
                  autoComplete="name"
                  maxLength={DISPLAY_NAME_MAX_LENGTH}
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                />
              </>
            )}
            <button type="submit" disabled={action.busy !== undefined || (!signedInAs && name.trim() === "")}>
              {action.busy ?? "Join"}
            </button>
            {action.error && (
              <p className="form-error" role="alert">
                {action.error}
              </p>
            )}
          </form>
        )}
      </div>
    </main>
  );
}
