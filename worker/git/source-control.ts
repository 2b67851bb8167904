import { ErrorCode } from "../../protocol/errors";
import {
  GIT_DIFF_MAX_BYTES,
  GIT_STATUS_LIMIT,
  type GitBranch,
  type GitCommit,
  type GitCommitResult,
  type GitDiff,
  type GitDiffSide,
  type GitStatus,
} from "../../protocol/git";
import { AppError } from "../errors";
import { fileError } from "../files/file-errors";
import type { Files } from "../files/sandbox-files";
import { containerPath } from "../files/workspace-path";
import { type GitCli, gitFailure, isNotARepository } from "./git-cli";
import { parseStatus } from "./status-parser";

/** Exit codes of BLOB_SCRIPT. */
const MISSING = 3;
const TOO_LARGE = 4;
/** Prints a blob of git's, or exits MISSING (no such object) or TOO_LARGE (over the limit, its size printed). */
const BLOB_SCRIPT = `size=$(git cat-file -s "$1" 2>/dev/null) || exit ${MISSING}
if [ "$size" -gt "$2" ]; then echo "$size"; exit ${TOO_LARGE}; fi
exec git cat-file blob "$1"`;

/** Sorts paths into untracked ones (removed by clean) and the rest (restored from the index). */
const UNTRACKED_SCRIPT = "xargs -0 -r git ls-files -z --others --exclude-standard --";

/**
 * Source control of /workspace: each method runs git in the container and
 * answers what the panel shows, or throws git's own refusal. Paths were
 * checked (workspace-path.ts) and reach git on stdin or after `--`, never
 * where git reads options; git itself refuses paths outside the repository
 * and beyond symbolic links.
 */
export class SourceControl {
  constructor(
    private readonly git: GitCli,
    /** The working tree side of a diff is read through the files API's confinement. */
    private readonly files: Pick<Files, "lstat" | "readFile">,
  ) {}

  async status(): Promise<GitStatus> {
    const result = await this.git.run(["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"], {
      read: true,
    });
    if (result.exitCode !== 0) {
      if (isNotARepository(result)) return { repository: false };
      throw gitFailure(result);
    }
    return parseStatus(result.stdout, GIT_STATUS_LIMIT);
  }

  /** `git init` (branch `main` unless `init.defaultBranch` says otherwise), then the new status. */
  async init(): Promise<GitStatus> {
    const configured = (await this.git.run(["config", "--get", "init.defaultBranch"], { read: true })).stdout.trim();
    await this.git.ok(configured ? ["init", "-q"] : ["init", "-q", "--initial-branch=main"]);
    return this.status();
  }

  /**
   * The two sides of a file's change: HEAD and the index (`staged`), or the
   * index and the working tree. A side that does not exist is `missing`.
   */
  async diff(path: string, staged: boolean): Promise<GitDiff> {
    await this.requireRepository();
    if (staged) {
      const [original, modified] = await Promise.all([
        this.blob(`HEAD:${path}`, "HEAD"),
        this.blob(`:0:${path}`, "index"),
      ]);
      return { path, staged, original, modified };
    }
    let original = await this.blob(`:0:${path}`, "index");
    // A conflicted file has no stage 0: compare with HEAD.
    if (original.missing) original = await this.blob(`HEAD:${path}`, "HEAD");
    return { path, staged, original, modified: await this.workingTree(path) };
  }

  /** `git add -A` of the paths (new, changed and deleted files alike). */
  async stage(paths: readonly string[]): Promise<void> {
    await this.git.ok(["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"], { input: nulList(paths) });
  }

  /** Takes the paths out of the index (back to HEAD, or out altogether before the first commit). */
  async unstage(paths: readonly string[]): Promise<void> {
    await this.git.ok(["reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"], { input: nulList(paths) });
  }

  /**
   * Throws away working tree changes: tracked files go back to the index,
   * untracked files are deleted (`git clean`, which never follows a link out).
   */
  async discard(paths: readonly string[]): Promise<void> {
    await this.requireRepository();
    const listed = await this.git.script(UNTRACKED_SCRIPT, [], { input: nulList(paths), read: true });
    if (listed.exitCode !== 0) throw gitFailure(listed);
    const untracked = new Set(listed.stdout.split("\0").filter(Boolean));
    const tracked = paths.filter((p) => !untracked.has(p));
    if (untracked.size > 0) {
      const cleaned = await this.git.script("xargs -0 -r git clean -f -q --", [], { input: nulList([...untracked]) });
      if (cleaned.exitCode !== 0) throw gitFailure(cleaned);
    }
    if (tracked.length > 0) {
      await this.git.ok(["restore", "--worktree", "--pathspec-from-file=-", "--pathspec-file-nul"], {
        input: nulList(tracked),
      });
    }
  }

  async commit(message: string, amend: boolean): Promise<GitCommitResult> {
    await this.requireRepository();
    await this.git.ok(["commit", "-q", "--cleanup=whitespace", "-F", "-", ...(amend ? ["--amend"] : [])], {
      input: message,
    });
    const [oid = "", summary = ""] = (await this.git.ok(["log", "-1", "--format=%H%x00%s"], { read: true }))
      .trim()
      .split("\0");
    return { oid, summary };
  }

  async branches(): Promise<GitBranch[]> {
    await this.requireRepository();
    const format = ["%(refname)", "%(HEAD)", "%(objectname:short)", "%(upstream:short)", "%(subject)"].join("%00");
    const out = await this.git.ok(["for-each-ref", `--format=${format}`, "refs/heads", "refs/remotes"], { read: true });
    const branches: GitBranch[] = [];
    for (const line of out.split("\n")) {
      const [ref = "", head, oid = "", upstream, subject = ""] = line.split("\0");
      const remote = ref.startsWith("refs/remotes/");
      if (!remote && !ref.startsWith("refs/heads/")) continue;
      const name = ref.slice(remote ? "refs/remotes/".length : "refs/heads/".length);
      // origin/HEAD points at a branch listed anyway.
      if (remote && name.endsWith("/HEAD")) continue;
      branches.push({ name, remote, current: head === "*", oid, subject, ...(upstream ? { upstream } : {}) });
    }
    return branches;
  }

  /** Makes a branch (git checks the name), from `from` or HEAD, and switches to it unless told not to. */
  async createBranch(name: string, from: string | undefined, checkout: boolean): Promise<void> {
    await this.requireRepository();
    const valid = await this.git.run(["check-ref-format", "--branch", name], { read: true });
    if (valid.exitCode !== 0) {
      throw new AppError(ErrorCode.INVALID_BRANCH_NAME, valid.stderr.trim().replace(/^fatal: /, "") || "Invalid name.");
    }
    const start = from === undefined ? [] : [from];
    await this.git.ok(checkout ? ["switch", "-c", name, ...start] : ["branch", name, ...start]);
  }

  /**
   * Switches branch; git refuses (and its message says why) when local
   * changes would be overwritten. A remote-tracking branch (`origin/x`)
   * switches to the local `x`, made to track it when there is none.
   */
  async checkout(branch: string): Promise<void> {
    await this.requireRepository();
    const exists = async (ref: string) =>
      (await this.git.run(["show-ref", "--verify", "--quiet", ref], { read: true })).exitCode === 0;
    if (!(await exists(`refs/heads/${branch}`)) && (await exists(`refs/remotes/${branch}`))) {
      const local = branch.slice(branch.indexOf("/") + 1);
      await this.git.ok((await exists(`refs/heads/${local}`)) ? ["switch", local] : ["switch", "--track", branch]);
      return;
    }
    await this.git.ok(["switch", branch]);
  }

  async log(limit: number): Promise<GitCommit[]> {
    const result = await this.git.run(["log", `-n${limit}`, "--format=%H%x00%h%x00%an%x00%ae%x00%aI%x00%s%x1e"], {
      read: true,
    });
    if (result.exitCode !== 0) {
      // A branch with no commits yet has an empty log.
      if (/does not have any commits yet/.test(result.stderr)) return [];
      throw gitFailure(result);
    }
    return result.stdout
      .split("\x1e")
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map((entry) => {
        const [oid = "", shortOid = "", author = "", email = "", date = "", subject = ""] = entry.split("\0");
        return { oid, shortOid, author, email, date, subject };
      });
  }

  /** The remotes' names. */
  async remotes(): Promise<string[]> {
    return (await this.git.ok(["remote"], { read: true })).split("\n").filter(Boolean);
  }

  /** The current branch's upstream (`origin/main`), if it has one. */
  async upstream(): Promise<string | undefined> {
    const result = await this.git.run(["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"], {
      read: true,
    });
    return result.exitCode === 0 ? result.stdout.trim() : undefined;
  }

  /** Sets user.name and user.email (globally, for the terminal too) to the signed-in user's unless git has them. */
  async ensureIdentity(name: string, email: string): Promise<void> {
    await this.git.script(
      'git config user.name >/dev/null || git config --global user.name "$1"; git config user.email >/dev/null || git config --global user.email "$2"',
      [name, email],
    );
  }

  async requireRepository(): Promise<void> {
    const result = await this.git.run(["rev-parse", "--git-dir"], { read: true });
    if (result.exitCode !== 0) throw gitFailure(result);
  }

  private async blob(revision: string, label: string): Promise<GitDiffSide> {
    const result = await this.git.script(BLOB_SCRIPT, [revision, String(GIT_DIFF_MAX_BYTES)], { read: true });
    if (result.exitCode === MISSING) return { label, missing: true };
    if (result.exitCode === TOO_LARGE) return { label, tooLarge: true };
    if (result.exitCode !== 0) throw gitFailure(result);
    return textSide(label, result.stdout);
  }

  /** The file as it is on disk, read beneath /workspace as the files API reads it (a link shows its target, as git stores it). */
  private async workingTree(path: string): Promise<GitDiffSide> {
    const label = "working tree";
    try {
      const stat = await this.files.lstat(containerPath(path));
      if (stat.type === "symlink") {
        const target = await this.git.script('readlink -- "$1"', [containerPath(path)], { read: true });
        return { label, text: target.stdout.replace(/\n$/, "") };
      }
      if (stat.type === "directory") return { label, missing: true };
      if (stat.size > BigInt(GIT_DIFF_MAX_BYTES)) return { label, tooLarge: true };
      const response = await this.files.readFile(containerPath(path));
      return textSide(label, await response.text());
    } catch (error) {
      const mapped = fileError(error, path);
      if (mapped instanceof AppError && mapped.code === ErrorCode.FILE_NOT_FOUND) return { label, missing: true };
      throw mapped;
    }
  }
}

/** git's own test for binary content: a NUL in the first 8000 bytes. */
function textSide(label: string, text: string): GitDiffSide {
  return text.slice(0, 8000).includes("\0") ? { label, binary: true } : { label, text };
}

function nulList(paths: readonly string[]): string {
  return paths.map((p) => `${p}\0`).join("");
}
