/**
 * The inputs of the source control routes, checked before git sees them:
 * paths with the files API's confinement, names that git could read as an
 * option refused. git checks branch names exactly afterwards
 * (`check-ref-format`), with its own message.
 */
import { ErrorCode } from "../../protocol/errors";
import { checkBranchName, GIT_LOG_DEFAULT, GIT_LOG_MAX, GIT_MAX_PATHS } from "../../protocol/git";
import { AppError } from "../errors";
import { checkWorkspacePath } from "../files/workspace-path";

/** `{paths: [...]}`: 1 to GIT_MAX_PATHS workspace-relative paths, each checked like the files API's. */
export function checkPaths(body: Record<string, unknown>): string[] {
  const { paths } = body;
  if (!Array.isArray(paths) || paths.length === 0) {
    throw new AppError(ErrorCode.BAD_REQUEST, 'Send {"paths": ["src/a.ts", ...]}: one path or more.');
  }
  if (paths.length > GIT_MAX_PATHS) {
    throw new AppError(ErrorCode.BAD_REQUEST, `At most ${GIT_MAX_PATHS} paths at once (${paths.length} sent).`);
  }
  return paths.map((path, index) => checkPath(path, `paths[${index}]`));
}

/** One workspace-relative path; "." (all of /workspace) is allowed. */
export function checkPath(value: unknown, name = "path"): string {
  const result = checkWorkspacePath(typeof value === "string" ? value : undefined);
  if (!result.ok) throw new AppError(ErrorCode.INVALID_PATH, `${name}: ${result.reason}`);
  return result.path;
}

export function checkMessage(value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new AppError(ErrorCode.INVALID_COMMIT_MESSAGE, "Write a commit message: it cannot be empty.");
  }
  if (value.includes("\0"))
    throw new AppError(ErrorCode.INVALID_COMMIT_MESSAGE, "The message contains a NUL character.");
  return value;
}

/** A branch name for create and switch (git has the last word on what it accepts). */
export function checkBranch(value: unknown, name = "name"): string {
  const checked = checkBranchName(value);
  if ("error" in checked) throw new AppError(ErrorCode.INVALID_BRANCH_NAME, `${name}: ${checked.error}`);
  return checked.name;
}

/** A start point (branch, tag, commit): anything but an option or a control character. */
export function checkRevision(value: unknown): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (typeof value !== "string" || value.startsWith("-") || /[\u0000-\u0020\u007f]/.test(value) || value.length > 255) {
    throw new AppError(ErrorCode.BAD_REQUEST, "from must name a branch, tag or commit.");
  }
  return value;
}

/** A remote's name (`origin`), as `git remote add` accepts. */
export function checkRemote(value: unknown): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string" || !/^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/.test(value)) {
    throw new AppError(ErrorCode.BAD_REQUEST, "remote must be a remote's name, such as origin.");
  }
  return value;
}

export function checkLimit(value: string | null): number {
  if (value === null || value === "") return GIT_LOG_DEFAULT;
  const limit = /^\d{1,4}$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1 && limit <= GIT_LOG_MAX)) {
    throw new AppError(ErrorCode.BAD_REQUEST, `limit must be a whole number from 1 to ${GIT_LOG_MAX}.`);
  }
  return limit;
}
