import { useCallback, useEffect, useState } from "react";
import type { SessionInfo } from "../../protocol/session";
import { ApiRequestError, apiJson } from "../api";

export type SessionState =
  | { state: "loading" }
  | { state: "signed-out"; error?: string }
  | { state: "signed-in"; user: SessionInfo["user"] };

/** Who is signed in, and the actions to sign in and out. */
export function useSession() {
  const [session, setSession] = useState<SessionState>({ state: "loading" });

  const refresh = useCallback(async () => {
    try {
      const info = await apiJson<SessionInfo>("/api/session");
      setSession({ state: "signed-in", user: info.user });
    } catch (error) {
      setSession({
        state: "signed-out",
        error: error instanceof ApiRequestError && error.status !== 401 ? error.message : undefined,
      });
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const signIn = useCallback(
    async (password: string) => {
      await apiJson<void>("/api/session", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ password }),
      });
      await refresh();
    },
    [refresh],
  );

  const signOut = useCallback(async () => {
    await apiJson<void>("/api/session", { method: "DELETE" }).catch(() => undefined);
    setSession({ state: "signed-out" });
  }, []);

  return { session, signIn, signOut };
}
