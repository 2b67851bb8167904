import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import type { Sandbox } from "../sandbox/sandbox";
import type { WorkspaceRoutes } from "../workspace-router";
import { parseSearchQuery } from "./search-query";
import type { WorkspaceSearch } from "./workspace-search";

/**
 * The Durable Object's search routes, as the Worker forwards them
 * (worker/routes/search.ts): `GET /search` streams NDJSON, `DELETE /search`
 * ends a client's running search, `GET /files/index` answers the file list. Both are reads: they never hold the disk lock, so a
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
    "DELETE /search": async (_request, url) => {
      const client = clientKey(url.searchParams.get("client"));
      if (!client)
        throw new AppError(ErrorCode.INVALID_SEARCH, "client must name the page's key (8-64 letters, digits, - or _).");
      search.cancel(client);
      return new Response(null, { status: 204 });
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
