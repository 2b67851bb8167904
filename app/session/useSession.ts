import { useCallback, useEffect, useState } from "react";
import { ACCESS_LOGOUT_PATH, type SessionInfo } from "../../protocol/session";
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

  /** Ends this session (or every session of the user) on the server. */
  const signOut = useCallback(
    async (everywhere = false) => {
      // Signed out here whatever the server says: a failed sign-out leaves only an expiring cookie.
      await (everywhere ? sessionApi.signOutEverywhere() : sessionApi.signOut()).catch(() => undefined);
      // Cloudflare Access would sign an Access user straight in again with the token it holds:
      // its own logout ends that too, and the next visit signs in through Access afresh.
      if (session.state === "signed-in" && session.user.via === "access") {
        window.location.assign(ACCESS_LOGOUT_PATH);
        return;
      }
      setSession({ state: "signed-out" });
    },
    [session],
  );

  return { session, signIn, signOut, refresh };
}
