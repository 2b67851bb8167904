import type { ErrorCode } from "./errors";

/**
 * Wire types of the source control API (`/api/workspaces/{id}/git/...`). The
 * repository is /workspace; every path is relative to it, as in the files API.
 */

/**
 * What happened to a file, in git's one-letter codes: Modified, Added,
 * Deleted, Renamed, Copied, Type changed (file <-> symlink), Unmerged
 * (a conflict) and ? (untracked).
 */
export type GitChangeCode = "M" | "A" | "D" | "R" | "C" | "T" | "U" | "?";

export interface GitFileChange {
  path: string;
  code: GitChangeCode;
  /** The path before a rename or copy. */
  from?: string;
}

export interface GitBranchState {
  /** The checked-out branch; null when HEAD is detached. */
  head: string | null;
  /** The commit HEAD points at; null before the first commit. */
  oid: string | null;
  /** `origin/main`, when the branch tracks one. */
  upstream?: string;
  /** Commits on this branch that the upstream lacks, and the other way round. */
  ahead?: number;
  behind?: number;
}

/** `GET /git/status` */
export type GitStatus =
  | { repository: false }
  | {
      repository: true;
      branch: GitBranchState;
      /** In the index, to be committed. */
      staged: GitFileChange[];
      /** Changed in the working tree, not staged. */
      changed: GitFileChange[];
      untracked: GitFileChange[];
      /** Unmerged paths of a merge, rebase or cherry-pick that stopped. */
      conflicted: GitFileChange[];
      /** True when the lists stop at {@link GIT_STATUS_LIMIT} entries (`total` says how many there are). */
      truncated: boolean;
      total: number;
    };

/** At most this many files are listed by one status (git's own count is in `total`). */
export const GIT_STATUS_LIMIT = 20_000;

/** `GET /git/diff?path=P&staged=0|1`: the two sides for a side-by-side view. */
export interface GitDiff {
  path: string;
  staged: boolean;
  /** HEAD (staged) or the index (not staged); "" for a new file. */
  original: GitDiffSide;
  /** The index (staged) or the working tree (not staged); "" for a deleted file. */
  modified: GitDiffSide;
}

export interface GitDiffSide {
  /** "HEAD", "index" or "working tree". */
  label: string;
  /** The text; absent when the side is binary or too large to show. */
  text?: string;
  binary?: boolean;
  tooLarge?: boolean;
  /** The side does not exist (a new or deleted file). */
  missing?: boolean;
}

/** Each side of a diff is shown up to this size. */
export const GIT_DIFF_MAX_BYTES = 2 * 1024 * 1024;

/** `POST /git/stage`, `/git/unstage`, `/git/discard` */
export interface GitPathsRequest {
  paths: readonly string[];
}

/** At most this many paths in one stage, unstage or discard. */
export const GIT_MAX_PATHS = 20_000;

/** `POST /git/commit` */
export interface GitCommitRequest {
  message: string;
  /** Replace the last commit (its message too) instead of adding one. */
  amend?: boolean;
}

export interface GitCommitResult {
  oid: string;
  summary: string;
}

export interface GitBranch {
  /** `main`, or `origin/main` for a remote-tracking branch. */
  name: string;
  remote: boolean;
  current: boolean;
  oid: string;
  upstream?: string;
  subject: string;
}

/** `GET /git/branches` */
export interface GitBranches {
  branches: GitBranch[];
}

/** `POST /git/branches` */
export interface GitCreateBranchRequest {
  name: string;
  /** A branch, tag or commit to start from; HEAD when absent. */
  from?: string;
  /** Switch to it once made (default true). */
  checkout?: boolean;
}

/** `POST /git/checkout` */
export interface GitCheckoutRequest {
  /** A local branch, or a remote-tracking one (`origin/x` makes and switches to a local `x`). */
  branch: string;
}

export interface GitCommit {
  oid: string;
  shortOid: string;
  author: string;
  email: string;
  /** ISO 8601. */
  date: string;
  subject: string;
}

/** `GET /git/log?limit=N` */
export interface GitLog {
  commits: GitCommit[];
}

export const GIT_LOG_DEFAULT = 20;
export const GIT_LOG_MAX = 500;

/** `POST /git/pull`, `/git/push`, `/git/fetch` (all optional). */
export interface GitSyncRequest {
  /** A remote's name; the branch's upstream (or `origin`) when absent. */
  remote?: string;
}

/**
 * The streamed answer of `POST /git/{pull,push,fetch}` and of a clone:
 * newline-delimited JSON, one event a line, the last one `done` or `error`.
 * `progress` is a line of git's own progress (`Receiving objects:  45% ...`),
 * `output` any other line git printed.
 */
export type GitSyncEvent =
  | { type: "progress"; text: string }
  | { type: "output"; text: string }
  | { type: "done" }
  | { type: "error"; code: ErrorCode; message: string };

/** A git host that has a token (`GET /git/credentials`); the token itself is never shown again. */
export interface GitCredential {
  host: string;
  /** ISO 8601 */
  updatedAt: string;
}

/** `GET /git/credentials` (and the answer to `PUT`). */
export interface GitCredentials {
  hosts: GitCredential[];
  /** Whether this deployment offers GitHub's device sign-in (GITHUB_OAUTH_CLIENT_ID is set). */
  githubSignIn: boolean;
}

/** `PUT /git/credentials` */
export interface GitTokenRequest {
  /** One host name, such as github.com. */
  host: string;
  token: string;
}

/** `POST /git/credentials/github`: the person enters `userCode` at `verificationUri` before `expiresAt`. */
export interface GitHubDeviceCode {
  userCode: string;
  verificationUri: string;
  expiresAt: string;
  /** Seconds to wait between polls. */
  interval: number;
}

/** `POST /git/credentials/github/poll` */
export type GitHubSignIn = { state: "pending"; interval: number } | { state: "done" | "expired" | "denied" };

/** A Git URL a new workspace may be cloned from: https, http, git, ssh, or scp-like `user@host:path`. */
export function checkGitUrl(value: unknown): { url: string } | { error: string } {
  if (typeof value !== "string" || value.trim() === "") return { error: "The Git URL is empty." };
  const url = value.trim();
  if (url.length > 2048) return { error: "The Git URL is longer than 2048 characters." };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u0020\u007f]/.test(url)) return { error: "The Git URL cannot contain spaces or control characters." };
  if (url.startsWith("-")) return { error: "The Git URL cannot start with '-'." };
  if (/^(https?|git|ssh):\/\/[^/]+/i.test(url)) return { url };
  if (/^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/].*/.test(url)) return { url };
  return {
    error:
      "Use an https://, http://, git:// or ssh:// URL, or git@host:owner/repo.git (ext:: and file paths are refused).",
  };
}

/** A branch to clone: what `git check-ref-format --branch` would take, checked roughly here and exactly by git. */
export function checkBranchName(value: unknown): { name: string } | { error: string } {
  if (typeof value !== "string" || value.trim() === "") return { error: "The branch name is empty." };
  const name = value.trim();
  if (name.length > 255) return { error: "The branch name is longer than 255 characters." };
  if (name.startsWith("-")) return { error: "A branch name cannot start with '-'." };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u0020\u007f~^:?*[\\]|\.\.|@\{|\/\/|^\/|\/$|\.lock$|\.$|^@$/.test(name)) {
    return { error: `"${name}" is not a valid branch name (no spaces, ~ ^ : ? * [ \\, "..", or a trailing ".lock").` };
  }
  return { name };
}
