import { useCallback, useEffect, useState } from "react";
import type { SessionInfo } from "../../protocol/session";
import { ApiRequestError } from "../api/http";
import { sessionApi } from "../api/session";

export type SessionState =
  | { state: "loading" }
  | { state: "signed-out"; error?: string }
  | { state: "signed-in"; user: SessionInfo["user"] };

/** Who is signed in, and the actions to sign in and out. */
export function useSession() {
  const [session, setSession] = useState<SessionState>({ state: "loading" });

  const refresh = useCallback(async () => {
    try {
      const info = await sessionApi.get();
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
      await sessionApi.signIn(password);
      await refresh();
    },
    [refresh],
  );

  const signOut = useCallback(async () => {
    // Signed out here whatever the server says: a failed sign-out leaves only an expiring cookie.
    await sessionApi.signOut().catch(() => undefined);
    setSession({ state: "signed-out" });
  }, []);

  return { session, signIn, signOut };
}
