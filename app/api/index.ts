/**
 * The app's API client: every request the page makes to the Worker goes
 * through here (and so through http.ts, for one error type and one retry rule).
 */
export type { FilesApi } from "./files";
export type { GitApi, SyncKind } from "./git";
export { ApiRequestError, errorMessage } from "./http";
export type { NetworkApi } from "./network";
export type { PreviewsApi } from "./previews";
export type { SearchApi } from "./search";
export { sessionApi } from "./session";
export { type TerminalsApi, type WorkspaceApi, workspacesApi } from "./workspace";

import { WorkspaceApi } from "./workspace";

const workspaces = new Map<string, WorkspaceApi>();

/** The client for one workspace (one object per id, so hooks can depend on it). */
export function workspaceApi(id: string): WorkspaceApi {
  let api = workspaces.get(id);
  if (!api) {
    api = new WorkspaceApi(id);
    workspaces.set(id, api);
  }
  return api;
}
