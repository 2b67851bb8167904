import { useCallback, useRef, useState } from "react";
import { errorMessage } from "../api/http";

export interface Action {
  /** Runs `action`, showing `label` while it runs; a failure becomes `error`. Resolves whether it succeeded. */
  run: (action: () => Promise<unknown> | unknown, label?: string) => Promise<boolean>;
  /** What runs now (its label), if anything. */
  busy: string | undefined;
  /** The last failure's message, until the next run or `dismiss`. */
  error: string | undefined;
  dismiss: () => void;
}

/** The one way components run an action and show its error (one message format: the server's or the Error's). */
export function useAction(): Action {
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();
  const running = useRef(0);
  const run = useCallback(async (action: () => Promise<unknown> | unknown, label = "") => {
    running.current++;
    setBusy(label);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (cause) {
      setError(errorMessage(cause));
      return false;
    } finally {
      if (--running.current === 0) setBusy(undefined);
    }
  }, []);
  const dismiss = useCallback(() => setError(undefined), []);
  return { run, busy, error, dismiss };
}
