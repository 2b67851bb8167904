import { type FormEvent, useState } from "react";
import { normalUserCode } from "../../protocol/access";
import { accessApi } from "../api/access";
import { useAction } from "../hooks/useAction";
import "./access.css";

/**
 * `/device?code=ABCD-EFGH`: where a signed-in person approves a
 * `cloud-ide login` on a command line, after checking that the code is the
 * one their terminal shows. Approving gives that command line a token of theirs.
 */
export function DevicePage() {
  const [code, setCode] = useState(() => new URLSearchParams(window.location.search).get("code") ?? "");
  const [approved, setApproved] = useState(false);
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const normal = normalUserCode(code);
    await action.run(async () => {
      if (!normal) throw new Error("A code is eight letters, like BCDF-GHJK: copy it from your terminal.");
      await accessApi.approveDevice(normal);
      setApproved(true);
    }, "Approving");
  };
  return (
    <main className="access-page" data-testid="device-page">
      <h1>Sign in a command line</h1>
      {approved ? (
        <p role="status" data-testid="device-approved">
          Approved: the command line is signed in as you (a token for 30 days, listed on the{" "}
          <a href="/tokens">Tokens page</a>). You can close this page.
        </p>
      ) : (
        <form className="access-form" onSubmit={(e) => void submit(e)}>
          <p>
            Approve only a code that your own terminal shows after <code>cloud-ide login</code>: the command line gets a
            token to reach your workspaces.
          </p>
          <label>
            Code
            <input value={code} onChange={(e) => setCode(e.target.value)} placeholder="BCDF-GHJK" required />
          </label>
          <button type="submit" disabled={action.busy !== undefined}>
            Approve
          </button>
        </form>
      )}
      {action.error && (
        <p role="alert" className="access-error">
          {action.error}
        </p>
      )}
    </main>
  );
}
