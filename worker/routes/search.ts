import { Hono } from "hono";
import type { AppEnv } from "../workspace-access";
import { forward } from "./files";

/**
 * Search in files and the file index (protocol/search.ts), forwarded to the
 * workspace once the session and ownership are checked (`requestedWorkspace`:
 * another user's workspace answers 404).
 *
 *   GET /search?q=TEXT[&regex=1][&case=1][&word=1][&include=GLOBS][&exclude=GLOBS][&ignored=1][&max=N][&client=KEY]
 *       NDJSON: {"type":"file","path","matches":[{line,column,text,ranges}]}... then {"type":"done",...};
 *       400 INVALID_SEARCH for a query ripgrep refuses (a regular expression that does not compile).
 *   DELETE /search?client=KEY
 *       204: ends that client's running search (ripgrep is killed).
 *   GET /files/index
 *       {"files":[PATH...],"limitHit"?:true}: every file search looks in.
 */
export const searchRoutes = new Hono<AppEnv>();

searchRoutes.get("/:id/search", forward);
searchRoutes.delete("/:id/search", forward);
searchRoutes.get("/:id/files/index", forward);
