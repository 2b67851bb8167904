import type { FileIndex, SearchEvent, SearchQuery } from "../../protocol/search";
import { apiFetch, apiJson, readAwake, workspacePath } from "./http";

type FileEvent = Extract<SearchEvent, { type: "file" }>;
type DoneEvent = Extract<SearchEvent, { type: "done" }>;

export interface SearchCallbacks {
  /** Aborting ends the search on the server too (ripgrep is killed). */
  signal?: AbortSignal;
  /** Matches of one file, as they stream in. */
  onFile: (event: FileEvent) => void;
}

/**
 * Search in files and the file index of one workspace (worker/search/search-routes.ts):
 * the search's NDJSON lines are handed over as they arrive.
 */
export class SearchApi {
  /** This page's key: the server ends this page's running search when it starts its next one. */
  private readonly client = `page-${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;

  constructor(readonly workspaceId: string) {}

  url(query: SearchQuery): string {
    const params = new URLSearchParams({ q: query.q });
    if (query.regex) params.set("regex", "1");
    if (query.matchCase) params.set("case", "1");
    if (query.wholeWord) params.set("word", "1");
    if (query.include?.length) params.set("include", query.include.join(","));
    if (query.exclude?.length) params.set("exclude", query.exclude.join(","));
    if (query.includeIgnored) params.set("ignored", "1");
    if (query.maxResults) params.set("max", String(query.maxResults));
    params.set("client", this.client);
    return workspacePath(this.workspaceId, `/search?${params}`);
  }

  /** Runs a search to its end; resolves with its `done` line. A refused query throws (400 INVALID_SEARCH). */
  async search(query: SearchQuery, { signal, onFile }: SearchCallbacks): Promise<DoneEvent> {
    const response = await readAwake(this.workspaceId, () => apiFetch(this.url(query), { signal }));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error("The search ended before it finished (the connection dropped); search again.");
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline !== -1) {
        const event = JSON.parse(buffer.slice(0, newline)) as SearchEvent;
        buffer = buffer.slice(newline + 1);
        if (event.type === "done") {
          void reader.cancel().catch(() => {});
          return event;
        }
        onFile(event);
        newline = buffer.indexOf("\n");
      }
    }
  }

  /** Ends this page's running search on the server (a closed connection does not always get there). */
  async cancel({ leaving = false } = {}): Promise<void> {
    const path = workspacePath(this.workspaceId, `/search?client=${this.client}`);
    // keepalive: the request outlives a page that is closing.
    await apiFetch(path, { method: "DELETE", keepalive: leaving }).catch(() => {});
  }

  fileIndex(): Promise<FileIndex> {
    return readAwake(this.workspaceId, () => apiJson(workspacePath(this.workspaceId, "/files/index")));
  }
}
