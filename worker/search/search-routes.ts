import { z } from "zod";
import { ErrorCode } from "../../protocol/errors";
import { check, none, refusal } from "../door/schema";
import { defineRoute, type WorkspaceRoute } from "../workspace-parts";
import { parseSearchQuery } from "./search-query";

/**
 * Search in files and the file index (protocol/search.ts). Both are reads:
 * they never hold the disk lock, so a long search does not hold up a save
 * (ripgrep just pauses while the container is frozen).
 */
export const SEARCH_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "GET",
    path: "/search",
    role: "viewer",
    wake: "read",
    doc: 'Searches the files for `q`: NDJSON (application/x-ndjson), `{"type":"file", path, matches:[{line, column, text, ranges:[[start, end]]}]}` lines as files are found (a file with many matches may come in several), then `{"type":"done", files, matches, limitHit?, error?, elapsedMs}`. Options: `regex=1` (ripgrep\'s syntax; a literal otherwise), `case=1`, `word=1` (whole words), `include` and `exclude` (comma-separated gitignore-style globs), `ignored=1` (also ignored files and node_modules), `max` (matching lines, 2,000 by default, at most 20,000), `client` (the page\'s key: its new search ends its running one). 400 INVALID_SEARCH for a query that cannot run (a regular expression that does not compile).',
    input: {
      query: check((query) => {
        const params = new URLSearchParams(query as Record<string, string>);
        return { search: parseSearchQuery(params), client: clientKey(params.get("client")) };
      }),
    },
    handle: async ({ query, workspace }) => {
      await workspace.sandbox.wake();
      return workspace.search.search(query.search, query.client);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/search",
    role: "viewer",
    wake: "never",
    doc: "Ends the running search of the page whose key is `client` (ripgrep is killed). 204.",
    input: {
      query: z.object({
        client: z
          .string()
          .optional()
          .transform((value) => clientKey(value ?? null) ?? "")
          .refine(
            (client) => client !== "",
            refusal(ErrorCode.INVALID_SEARCH, "client must name the page's key (8-64 letters, digits, - or _)."),
          ),
      }),
    },
    handle: async ({ query, workspace }) => {
      workspace.search.cancel(query.client);
      return new Response(null, { status: 204 });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/files/index",
    role: "viewer",
    wake: "read",
    doc: '`{"files":[PATH, ...], "limitHit"?: true}`: every file search looks in, at most 100,000 (`rg --files`; quick open\'s list).',
    input: { query: none },
    handle: async ({ workspace }) => {
      await workspace.sandbox.wake();
      return Response.json(await workspace.search.fileIndex(), { headers: { "Cache-Control": "no-store" } });
    },
  }),
];

/** A page's own key (`client=`): its new search ends its previous one. Anything else is ignored. */
function clientKey(value: string | null): string | undefined {
  return value && /^[A-Za-z0-9_-]{8,64}$/.test(value) ? value : undefined;
}
