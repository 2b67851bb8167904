import type { SessionInfo, SessionList, SignInRequest } from "../../protocol/session";
import { apiJson, jsonBody } from "./http";

/** Signing in and out, and the user's sessions: `/api/session`, `/api/sessions` (worker/routes/session.ts). */
export const sessionApi = {
  get: () => apiJson<SessionInfo>("/api/session"),
  signIn: (password: string) => apiJson<void>("/api/session", jsonBody("POST", { password } satisfies SignInRequest)),
  signOut: () => apiJson<void>("/api/session", { method: "DELETE" }),
  /** Ends every session of the user, this one included. */
  signOutEverywhere: () => apiJson<void>("/api/sessions", { method: "DELETE" }),
  list: async () => (await apiJson<SessionList>("/api/sessions")).sessions,
  end: (id: string) => apiJson<void>(`/api/sessions/${encodeURIComponent(id)}`, { method: "DELETE" }),
};
