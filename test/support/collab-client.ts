/**
 * A co-editing client for tests (scripts/lib/collab-client.mjs, shared with
 * the collaboration bench), connected as the owner or with a guest's headers.
 */
import { inject } from "vitest";
import { type CollabClient, connectCollab } from "../../scripts/lib/collab-client.mjs";
import { ownerCookie } from "./session";

export type { CollabClient };

/** Connects as the owner, or with `headers` (a guest's). Resolves once the first sync is done. */
export async function openCollab(
  workspaceId: string,
  path: string,
  headers?: Record<string, string>,
): Promise<CollabClient> {
  const url = new URL(`/ws/workspaces/${workspaceId}/collab/file`, inject("baseUrl"));
  url.protocol = "ws:";
  url.searchParams.set("path", path);
  return connectCollab(url, headers ?? { Origin: inject("baseUrl"), Cookie: await ownerCookie() });
}
