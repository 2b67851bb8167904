import type { SearchEvent } from "../../protocol/search";
import { parseSearchQuery } from "../search/search-query";
import type { WorkspaceSearch } from "../search/workspace-search";
import type { ToolOutput } from "./tool-output";

export interface SearchArgs {
  query: string;
  regex?: boolean | undefined;
  matchCase?: boolean | undefined;
  wholeWord?: boolean | undefined;
  include?: string[] | undefined;
  exclude?: string[] | undefined;
  includeIgnored?: boolean | undefined;
  maxResults: number;
}

/**
 * The IDE's own search (ripgrep in the container, worker/search/), with its
 * checks: the arguments become the query string the search route reads.
 */
export async function searchWorkspace(search: WorkspaceSearch, args: SearchArgs): Promise<ToolOutput> {
  const params = new URLSearchParams({ q: args.query, max: String(args.maxResults) });
  if (args.regex) params.set("regex", "1");
  if (args.matchCase) params.set("case", "1");
  if (args.wholeWord) params.set("word", "1");
  if (args.includeIgnored) params.set("ignored", "1");
  if (args.include?.length) params.set("include", args.include.join(","));
  if (args.exclude?.length) params.set("exclude", args.exclude.join(","));
  const response = await search.search(parseSearchQuery(params));
  const lines: string[] = [];
  let done: Extract<SearchEvent, { type: "done" }> | undefined;
  for (const line of (await response.text()).split("\n")) {
    if (line === "") continue;
    const event = JSON.parse(line) as SearchEvent;
    if (event.type === "done") done = event;
    else for (const m of event.matches) lines.push(`${event.path}:${m.line}:${m.column}: ${m.text}`);
  }
  if (lines.length === 0) return done?.error ? `Search failed: ${done.error}` : "No matches.";
  const notes: string[] = [];
  if (done?.limitHit) {
    notes.push(
      `[search stopped early (${done.limitHit === "results" ? `the ${args.maxResults} results asked for` : done.limitHit === "bytes" ? "the output limit" : "the time limit"}): narrow it with include or a more precise query]`,
    );
  }
  if (done?.error) notes.push(`[ripgrep: ${done.error}]`);
  return notes.length ? [lines.join("\n"), ...notes] : lines.join("\n");
}
