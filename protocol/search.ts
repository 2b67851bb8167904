/**
 * Wire types of search in files (`GET /api/workspaces/{id}/search`) and of
 * the file index (`GET /api/workspaces/{id}/files/index`). Paths are
 * relative to /workspace.
 *
 * The search answers NDJSON (`application/x-ndjson`): one {@link SearchEvent}
 * a line, `file` events as ripgrep finds matches, then one `done`. A query
 * that cannot run (a regular expression that does not compile, a bad glob)
 * answers 400 `INVALID_SEARCH` before any line.
 */

/** One matching line. Offsets count UTF-16 code units, as JavaScript strings do. */
export interface SearchMatch {
  /** 1-based. */
  line: number;
  /** 1-based column of the first match in the whole line. */
  column: number;
  /**
   * The line, cut to about {@link SEARCH_PREVIEW_CHARS} characters around the
   * first match when longer ("…" marks each cut), without its line break.
   */
  text: string;
  /** The matches within `text`, as [start, end) pairs (at most {@link SEARCH_MAX_RANGES}). */
  ranges: [number, number][];
}

export type SearchEvent =
  /** Matches in one file. A file with many matches may come in several events, in order. */
  | { type: "file"; path: string; matches: SearchMatch[] }
  | {
      type: "done";
      /** Files with a match, and matching lines, that were sent. */
      files: number;
      matches: number;
      /** Set when the search stopped early: too many results, the byte budget, or the time budget. */
      limitHit?: "results" | "bytes" | "time";
      /** ripgrep failed (its message); what was sent before stands. */
      error?: string;
      elapsedMs: number;
    };

/** `GET .../search` query parameters (only `q` is required). */
export interface SearchQuery {
  /** The text or regular expression (ripgrep's syntax) to find. */
  q: string;
  /** `regex=1`: `q` is a regular expression; otherwise a literal. */
  regex?: boolean;
  /** `case=1`: match case; otherwise case is ignored. */
  matchCase?: boolean;
  /** `word=1`: whole words only. */
  wholeWord?: boolean;
  /** `include=GLOB,GLOB`: only these files (a name like `src` includes a whole folder). */
  include?: string[];
  /** `exclude=GLOB,GLOB`: not these files or folders. */
  exclude?: string[];
  /** `ignored=1`: also files that `.gitignore` ignores, and `node_modules`. */
  includeIgnored?: boolean;
  /** `max=N`: stop after N matching lines (default {@link SEARCH_DEFAULT_RESULTS}, at most {@link SEARCH_MAX_RESULTS}). */
  maxResults?: number;
}

export const SEARCH_DEFAULT_RESULTS = 2_000;
export const SEARCH_MAX_RESULTS = 20_000;
/** Longest query, in characters. */
export const SEARCH_MAX_QUERY = 2_000;
/** At most this many include (and exclude) globs. */
export const SEARCH_MAX_GLOBS = 50;
/** A line's preview is cut to about this many characters around its first match. */
export const SEARCH_PREVIEW_CHARS = 250;
/** At most this many match ranges a line. */
export const SEARCH_MAX_RANGES = 50;
/** A search stops once it has sent this many bytes. */
export const SEARCH_MAX_BYTES = 4 * 1024 * 1024;
/** A search stops after this long. */
export const SEARCH_MAX_SECONDS = 30;

/** `GET .../files/index`: every file of the workspace that search would look in. */
export interface FileIndex {
  files: string[];
  /** Set when the workspace has more than {@link FILE_INDEX_MAX} files (the rest are left out). */
  limitHit?: boolean;
}

export const FILE_INDEX_MAX = 100_000;
