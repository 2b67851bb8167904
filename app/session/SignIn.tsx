import { type FormEvent, useState } from "react";
import { useAction } from "../hooks/useAction";

interface Props {
  onSignIn: (password: string) => Promise<void>;
  notice?: string;
}

export function SignIn({ onSignIn, notice }: Props) {
  const [password, setPassword] = useState("");
  const action = useAction();
  // The notice (why the session ended) shows until the first attempt.
  const [showNotice, setShowNotice] = useState(true);
  const error = action.error ?? (showNotice ? notice : undefined);
  const busy = action.busy !== undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setShowNotice(false);
    void action.run(() => onSignIn(password));
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
