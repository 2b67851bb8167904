import { type FormEvent, useState } from "react";
import { ApiRequestError } from "../api";

interface Props {
  onSignIn: (password: string) => Promise<void>;
  notice?: string;
}

export function SignIn({ onSignIn, notice }: Props) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | undefined>(notice);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onSignIn(password);
    } catch (err) {
      setError(err instanceof ApiRequestError ? err.message : String(err));
      setBusy(false);
    }
  };

  return (
    <main className="sign-in" data-testid="sign-in">
      <form onSubmit={submit} className="sign-in-form">
        <h1>Cloud IDE</h1>
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          // biome-ignore lint/a11y/noAutofocus: the only field on the page
          autoFocus
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <button type="submit" disabled={busy || password.length === 0}>
          Sign in
        </button>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <p className="hint">Running locally? The password is IDE_PASSWORD in .dev.vars.</p>
      </form>
    </main>
  );
}
