import type { SessionInfo } from "../../protocol/session";
import { apiJson, jsonBody } from "./http";

/** Signing in and out: `/api/session` (worker/routes/session.ts). */
export const sessionApi = {
  get: () => apiJson<SessionInfo>("/api/session"),
  signIn: (password: string) => apiJson<void>("/api/session", jsonBody("POST", { password })),
  signOut: () => apiJson<void>("/api/session", { method: "DELETE" }),
};
