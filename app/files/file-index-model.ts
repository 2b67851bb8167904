import fuzzysort, { type Prepared } from "fuzzysort";
import type { FileChange } from "../../protocol/files";
import type { SearchApi } from "../api/search";
import type { FileEventListener } from "./file-events";

export interface FileIndexSnapshot {
  state: "unloaded" | "loading" | "ready" | "error";
  error?: string;
  /** How many files; more than the server lists are left out when `limitHit`. */
  count: number;
  limitHit?: boolean;
}

export interface FileMatch {
  path: string;
  /** Positions of the matched characters in `path`, for highlighting. */
  indexes: readonly number[];
}

/** The files whose rules ripgrep follows (worker/search/search-query.ts). */
const IGNORE_FILES = /(^|\/)\.(gitignore|ignore|rgignore)$/;

/** How long after changes that may add files ignored by .gitignore the index is read again. */
const RELOAD_AFTER_MS = 1_000;

/**
 * Every file of the workspace for quick open: read once from the file index
 * route (ripgrep's `--files`, the search's ignore rules), then kept current
 * by the file watcher's events, and filtered in the page on every keystroke
 * (fuzzysort over targets prepared once). Events cannot tell whether a new
 * file is ignored, nor list what a new folder holds, so new files or
 * folders, a changed `.gitignore` (or `.ignore`, `.rgignore`) or a lost
 * event stream read the index again once changes pause for a second.
 */
export class FileIndexModel {
  private readonly files = new Map<string, Prepared>();
  private targets: Prepared[] | undefined;
  private sorted: string[] | undefined;
  private snapshot: FileIndexSnapshot = { state: "unloaded", count: 0 };
  private readonly listeners = new Set<() => void>();
  private loading: Promise<void> | undefined;
  /** Changes seen while a load is under way, applied on top of what it brings. */
  private heldBack: FileChange[] | undefined;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;
  private warmUpTimer: ReturnType<typeof setTimeout> | undefined;
  private warmedUp = false;

  constructor(private readonly api: Pick<SearchApi, "fileIndex">) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): FileIndexSnapshot => this.snapshot;

  /** Reads the index the first time it is needed (again after a failure). */
  ensureLoaded(): Promise<void> {
    if (this.snapshot.state === "ready") return Promise.resolve();
    this.loading ??= this.load();
    return this.loading;
  }

  /** The best matches of `query` (fuzzy), best first; with an empty query, the first files by path. */
  find(query: string, limit = 50): FileMatch[] {
    if (query.trim() === "") {
      this.sorted ??= byDepthThenPath([...this.files.keys()]);
      return this.sorted.slice(0, limit).map((path) => ({ path, indexes: [] }));
    }
    this.targets ??= [...this.files.values()];
    return fuzzysort.go(query, this.targets, { limit, threshold: 0 }).map((result) => ({
      path: result.target,
      indexes: [...result.indexes],
    }));
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  readonly onFileEvent: FileEventListener = (event) => {
    if (this.snapshot.state === "unloaded" || event.kind === "git") return;
    if (event.kind === "resync") {
      this.reloadSoon();
      return;
    }
    if (this.heldBack) {
      this.heldBack.push(...event.changes);
      return;
    }
    this.apply(event.changes);
  };

  dispose(): void {
    clearTimeout(this.reloadTimer);
    clearTimeout(this.warmUpTimer);
  }

  private async load(): Promise<void> {
    this.update({ state: this.snapshot.state === "ready" ? "ready" : "loading", error: undefined });
    this.heldBack = [];
    try {
      const index = await this.api.fileIndex();
      this.files.clear();
      for (const path of index.files) this.files.set(path, fuzzysort.prepare(path));
      const held = this.heldBack;
      this.heldBack = undefined;
      this.changed();
      this.update({ state: "ready", limitHit: index.limitHit });
      this.apply(held);
      this.warmUp();
    } catch (error) {
      this.heldBack = undefined;
      this.update({ state: "error", error: error instanceof Error ? error.message : String(error) });
    } finally {
      this.loading = undefined;
    }
  }

  /**
   * A few searches, one a task, once the list is in: V8 optimizes fuzzysort
   * only after it ran a few times, which the first keystrokes would
   * otherwise pay for (12-15 ms instead of 2-3 ms over 10,000 files).
   */
  private warmUp(): void {
    // Once a page: V8 keeps fuzzysort optimized, so the list's later reloads need none.
    if (this.warmedUp) return;
    this.warmedUp = true;
    const queries = ["a", "e", "s", "t", "in", "ts"];
    const next = () => {
      const query = queries.shift();
      if (query === undefined) return;
      this.find(query, 30);
      this.warmUpTimer = setTimeout(next, 0);
    };
    clearTimeout(this.warmUpTimer);
    this.warmUpTimer = setTimeout(next, 0);
  }

  private apply(changes: readonly FileChange[]): void {
    let touched = false;
    for (const change of changes) {
      // New ignore rules change which files belong in the list: only ripgrep can say.
      if (IGNORE_FILES.test(change.path) || (change.from && IGNORE_FILES.test(change.from))) this.reloadSoon();
      if (change.type === "modified") continue;
      touched = true;
      if (change.type === "created") {
        // Shown at once; whether ignore rules keep it (or what a new folder holds) only ripgrep can say.
        if (!change.directory) this.add(change.path);
        this.reloadSoon();
      } else if (change.type === "deleted") {
        this.removeTree(change.path);
      } else if (change.type === "moved" && change.from !== undefined) {
        const from = change.from;
        const moved = [...this.files.keys()].filter((p) => p === from || p.startsWith(`${from}/`));
        this.removeTree(from);
        if (change.directory) {
          for (const path of moved) this.add(change.path + path.slice(from.length));
        } else this.add(change.path);
      }
    }
    if (touched) this.changed();
  }

  private add(path: string): void {
    this.files.set(path, fuzzysort.prepare(path));
  }

  private removeTree(path: string): void {
    this.files.delete(path);
    const prefix = `${path}/`;
    for (const file of [...this.files.keys()]) if (file.startsWith(prefix)) this.files.delete(file);
  }

  private reloadSoon(): void {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => {
      this.loading ??= this.load();
    }, RELOAD_AFTER_MS);
  }

  private changed(): void {
    this.targets = undefined;
    this.sorted = undefined;
    this.update({ count: this.files.size });
  }

  private update(change: Partial<FileIndexSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...change };
    for (const listener of this.listeners) listener();
  }
}

/** Shallow files first, then by path: what a person scans for in an empty list (depths counted once). */
function byDepthThenPath(paths: string[]): string[] {
  const keyed = paths.map((path) => ({ path, depth: path.split("/").length }));
  keyed.sort((a, b) => a.depth - b.depth || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return keyed.map((k) => k.path);
}
