import type { Sandbox } from "../sandbox/sandbox";
import type { WorkspaceRoutes } from "../workspace-router";
import { parseSearchQuery } from "./search-query";
import type { WorkspaceSearch } from "./workspace-search";

/**
 * The Durable Object's search routes, as the Worker forwards them
 * (worker/routes/search.ts): `GET /search` streams NDJSON, `GET /files/index`
 * answers the file list. Both are reads: they never hold the disk lock, so a
 * long search does not hold up a save (ripgrep just pauses while the
 * container is frozen).
 */
export function searchRoutes(search: WorkspaceSearch, sandbox: Pick<Sandbox, "wake">): WorkspaceRoutes {
  return {
    "GET /search": async (_request, url) => {
      const query = parseSearchQuery(url.searchParams);
      await sandbox.wake();
      return search.search(query, clientKey(url.searchParams.get("client")));
    },
    "GET /files/index": async () => {
      await sandbox.wake();
      return Response.json(await search.fileIndex(), { headers: { "Cache-Control": "no-store" } });
    },
  };
}

/** A page's own key (`client=`): its new search ends its previous one. Anything else is ignored. */
function clientKey(value: string | null): string | undefined {
  return value && /^[A-Za-z0-9_-]{8,64}$/.test(value) ? value : undefined;
}
