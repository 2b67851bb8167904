import { ErrorCode } from "../../protocol/errors";
import {
  SEARCH_DEFAULT_RESULTS,
  SEARCH_MAX_GLOBS,
  SEARCH_MAX_QUERY,
  SEARCH_MAX_RESULTS,
  type SearchQuery,
} from "../../protocol/search";
import { AppError } from "../errors";

/**
 * The query of `GET .../search` (see protocol/search.ts), checked: every
 * value a person could get wrong is refused with a message that says how to
 * get it right.
 */
export function parseSearchQuery(params: URLSearchParams): SearchQuery {
  const q = params.get("q") ?? "";
  if (q.length === 0) throw invalid("q (the text to find) is missing.");
  if (q.length > SEARCH_MAX_QUERY) throw invalid(`q is longer than ${SEARCH_MAX_QUERY} characters.`);
  if (q.includes("\0")) throw invalid("q contains a NUL character.");
  const max = params.get("max");
  const maxResults = max === null ? SEARCH_DEFAULT_RESULTS : Number(max);
  if (!Number.isSafeInteger(maxResults) || maxResults < 1 || maxResults > SEARCH_MAX_RESULTS) {
    throw invalid(`max must be a whole number from 1 to ${SEARCH_MAX_RESULTS}.`);
  }
  return {
    q,
    regex: flag(params, "regex"),
    matchCase: flag(params, "case"),
    wholeWord: flag(params, "word"),
    include: globs(params, "include"),
    exclude: globs(params, "exclude"),
    includeIgnored: flag(params, "ignored"),
    maxResults,
  };
}

/** What search and the file index never look in: git's own folder. */
const ALWAYS_EXCLUDED = ["!.git"];
/** Skipped unless the person asks for ignored files too. */
const IGNORED_BY_DEFAULT = ["!node_modules"];

/**
 * The ignore rules search and quick open share: `.gitignore` (and `.ignore`,
 * `.rgignore`) whether or not /workspace is a git repository, hidden files
 * included, `.git` never, `node_modules` only on request.
 */
export function ignoreArgs(includeIgnored: boolean): string[] {
  const args = ["--hidden", "--no-require-git", "--no-config", "--no-messages"];
  if (includeIgnored) args.push("--no-ignore");
  return args;
}

/** Last on the command line, since ripgrep lets a later glob win over an earlier one (an include of `src`). */
function excludedGlobs(includeIgnored: boolean): string[] {
  return [...ALWAYS_EXCLUDED, ...(includeIgnored ? [] : IGNORED_BY_DEFAULT)].flatMap((glob) => ["--glob", glob]);
}

/** ripgrep's argv for a search of /workspace (run there: paths come out as `./src/a.ts`). */
export function ripgrepArgs(query: SearchQuery): string[] {
  const args = ["rg", "--json", "--line-buffered", ...ignoreArgs(query.includeIgnored ?? false)];
  args.push(query.matchCase ? "--case-sensitive" : "--ignore-case");
  if (!query.regex) args.push("--fixed-strings");
  if (query.wholeWord) args.push("--word-regexp");
  // A name without a slash at the end also means "everything in a folder of that name".
  for (const glob of query.include ?? []) args.push("--glob", glob, "--glob", `${glob.replace(/\/+$/, "")}/**`);
  for (const glob of query.exclude ?? []) args.push("--glob", `!${glob}`);
  args.push(...excludedGlobs(query.includeIgnored ?? false), "--regexp", query.q, "--", ".");
  return args;
}

/** The same search over /dev/null: ripgrep compiles the expression and the globs, and fails (exit 2) on either. */
export function checkArgs(query: SearchQuery): string[] {
  return [...ripgrepArgs(query).slice(0, -1), "/dev/null"];
}

/** The globs alone over /dev/null (with a literal that always compiles): exit 2 when one of them is refused. */
export function globCheckArgs(query: SearchQuery): string[] {
  return checkArgs({ ...query, q: "x", regex: false, wholeWord: false });
}

/** ripgrep's argv for the file index: every file search would look in, NUL-separated. */
export function fileIndexArgs(): string[] {
  return ["rg", "--files", "--null", ...ignoreArgs(false), ...excludedGlobs(false), "--", "."];
}

function flag(params: URLSearchParams, name: string): boolean {
  const value = params.get(name);
  if (value === null || value === "" || value === "0" || value === "false") return false;
  if (value === "1" || value === "true") return true;
  throw invalid(`${name} must be 1 or 0.`);
}

function globs(params: URLSearchParams, name: string): string[] {
  const list = params
    .getAll(name)
    .flatMap((value) => value.split(","))
    .map((glob) => glob.trim())
    .filter((glob) => glob.length > 0);
  if (list.length > SEARCH_MAX_GLOBS) throw invalid(`${name} has more than ${SEARCH_MAX_GLOBS} globs.`);
  for (const glob of list) {
    if (glob.startsWith("!"))
      throw invalid(`${name}: write "${glob.slice(1)}" without "!" (use exclude to leave files out).`);
    if (glob.includes("\0") || glob.length > 500) throw invalid(`${name}: "${glob.slice(0, 40)}" is not a glob.`);
  }
  return list;
}

function invalid(message: string): AppError {
  return new AppError(ErrorCode.INVALID_SEARCH, message);
}
