import type { SearchEvent, SearchMatch, SearchQuery } from "../../protocol/search";
import type { SearchApi } from "../api/search";

/** What the person typed and toggled. Globs are comma-separated, as typed. */
export interface SearchOptions {
  query: string;
  regex: boolean;
  matchCase: boolean;
  wholeWord: boolean;
  include: string;
  exclude: string;
  includeIgnored: boolean;
}

export interface FileResults {
  path: string;
  matches: readonly SearchMatch[];
}

export interface SearchSnapshot {
  options: SearchOptions;
  status: "idle" | "searching" | "done" | "error";
  error?: string;
  files: readonly FileResults[];
  /** Matching lines so far. */
  matches: number;
  limitHit?: "results" | "bytes" | "time";
  /** Files whose matches are folded away. */
  collapsed: ReadonlySet<string>;
}

const EMPTY: SearchOptions = {
  query: "",
  regex: false,
  matchCase: false,
  wholeWord: false,
  include: "",
  exclude: "",
  includeIgnored: false,
};

/** How long typing pauses before the search runs. */
const TYPING_PAUSE_MS = 250;
/** Results that stream in are shown at most this often, so a flood of them never blocks typing. */
const SHOW_EVERY_MS = 50;

/**
 * Search in files for one page: the options, and the results as they stream
 * in, grouped by file in the order found. A new query aborts the running one
 * (the server then kills its ripgrep). React reads it with useSyncExternalStore.
 */
export class SearchModel {
  private snapshot: SearchSnapshot = { options: EMPTY, status: "idle", files: [], matches: 0, collapsed: new Set() };
  private readonly listeners = new Set<() => void>();
  private running: AbortController | undefined;
  private typingTimer: ReturnType<typeof setTimeout> | undefined;
  private showTimer: ReturnType<typeof setTimeout> | undefined;
  /** Results of the running search, by path (insertion order is the order found). */
  private found = new Map<string, SearchMatch[]>();
  private foundMatches = 0;

  constructor(
    private readonly api: Pick<SearchApi, "search" | "cancel">,
    private readonly pauseMs = TYPING_PAUSE_MS,
  ) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): SearchSnapshot => this.snapshot;

  /** Changes options; the search runs again once typing pauses. */
  set(change: Partial<SearchOptions>): void {
    this.update({ options: { ...this.snapshot.options, ...change } });
    clearTimeout(this.typingTimer);
    this.typingTimer = setTimeout(() => void this.run(), this.pauseMs);
  }

  /** Runs the search now (Enter), ending the one under way. */
  async run(): Promise<void> {
    clearTimeout(this.typingTimer);
    this.running?.abort();
    const { options } = this.snapshot;
    this.found = new Map();
    this.foundMatches = 0;
    if (options.query === "") {
      if (this.running) void this.api.cancel();
      this.running = undefined;
      this.update({ status: "idle", files: [], matches: 0, error: undefined, limitHit: undefined });
      return;
    }
    const controller = new AbortController();
    this.running = controller;
    this.update({ status: "searching", files: [], matches: 0, error: undefined, limitHit: undefined });
    try {
      const done = await this.api.search(toQuery(options), {
        signal: controller.signal,
        onFile: (event) => this.add(event),
      });
      if (this.running !== controller) return;
      this.showFound({ status: "done", limitHit: done.limitHit, ...(done.error ? { error: done.error } : {}) });
    } catch (error) {
      if (this.running !== controller) return;
      this.showFound({ status: "error", error: error instanceof Error ? error.message : String(error) });
    } finally {
      if (this.running === controller) this.running = undefined;
    }
  }

  toggle(path: string): void {
    const collapsed = new Set(this.snapshot.collapsed);
    if (!collapsed.delete(path)) collapsed.add(path);
    this.update({ collapsed });
  }

  /** Ends a running search (the page is going, or leaving: `leaving` lets the request outlive it). */
  dispose({ leaving = false } = {}): void {
    clearTimeout(this.typingTimer);
    clearTimeout(this.showTimer);
    if (!this.running) return;
    this.running.abort();
    this.running = undefined;
    void this.api.cancel({ leaving });
  }

  private add(event: Extract<SearchEvent, { type: "file" }>): void {
    const list = this.found.get(event.path);
    if (list) list.push(...event.matches);
    else this.found.set(event.path, [...event.matches]);
    this.foundMatches += event.matches.length;
    this.showTimer ??= setTimeout(() => this.showFound({}), SHOW_EVERY_MS);
  }

  private showFound(change: Partial<SearchSnapshot>): void {
    clearTimeout(this.showTimer);
    this.showTimer = undefined;
    const files = [...this.found].map(([path, matches]) => ({ path, matches: [...matches] }));
    this.update({ files, matches: this.foundMatches, ...change });
  }

  private update(change: Partial<SearchSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...change };
    for (const listener of this.listeners) listener();
  }
}

export function toQuery(options: SearchOptions): SearchQuery {
  const globs = (text: string) =>
    text
      .split(",")
      .map((glob) => glob.trim())
      .filter(Boolean);
  return {
    q: options.query,
    regex: options.regex,
    matchCase: options.matchCase,
    wholeWord: options.wholeWord,
    include: globs(options.include),
    exclude: globs(options.exclude),
    includeIgnored: options.includeIgnored,
  };
}
