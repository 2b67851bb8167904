import { ErrorCode } from "../../protocol/errors";
import type {
  GitBranch,
  GitChangeCode,
  GitCommit,
  GitDiff,
  GitFileChange,
  GitStatus,
  GitSyncEvent,
} from "../../protocol/git";
import type { GitApi, SyncKind } from "../api/git";
import { ApiRequestError, errorMessage } from "../api/http";
import type { FileEventListener } from "../files/file-events";
import { parentOf } from "../files/paths";

/** A refresh waits this long after a change, so a burst of changes costs one `git status`. */
const REFRESH_DELAY_MS = 80;
/** And the next one starts at least this long after the last one ended. */
const REFRESH_GAP_MS = 250;
const LOG_LIMIT = 20;
/** Lines of a pull's, push's or fetch's output kept for the panel. */
const SYNC_LINES = 200;

export type RepositoryStatus = Extract<GitStatus, { repository: true }>;

export interface SyncState {
  kind: SyncKind;
  state: "running" | "done" | "failed";
  /** git's latest progress line ("Writing objects: 100% (3/3)"). */
  progress?: string;
  lines: readonly string[];
  /** git's own message when it failed. */
  message?: string;
}

export interface DiffState {
  path: string;
  staged: boolean;
  diff?: GitDiff;
  error?: string;
}

export interface GitSnapshot {
  /** Undefined until the first status arrives. */
  readonly status: GitStatus | undefined;
  /** Why the last refresh failed, while it is the latest news. */
  readonly error: string | undefined;
  readonly branches: readonly GitBranch[];
  readonly log: readonly GitCommit[];
  /** Each changed file's mark for the tree, and "•" on folders that hold one. */
  readonly marks: ReadonlyMap<string, GitChangeCode | "•">;
  readonly sync: SyncState | undefined;
  readonly diff: DiffState | undefined;
  /** The commit box's text (kept here, so the commit command can use it). */
  readonly draft: string;
  readonly amend: boolean;
}

/** What the model needs of the editor: after a checkout, pull or discard the open files are read again. */
export interface OpenFiles {
  list(): readonly { path: string }[];
  reload(path: string): Promise<void>;
}

/**
 * The Source Control panel's state for one workspace: git status (kept
 * current from the file watcher: file changes and changes in .git, at most
 * one `git status` in flight and bursts folded into one), branches, the
 * recent log, a diff being shown, a pull/push/fetch in progress, and the
 * actions. Actions throw on failure (the component shows the error). React
 * reads it through `useSyncExternalStore(model.subscribe, model.getSnapshot)`.
 */
export class GitModel {
  private snapshot: GitSnapshot = {
    status: undefined,
    error: undefined,
    branches: [],
    log: [],
    marks: new Map(),
    sync: undefined,
    diff: undefined,
    draft: "",
    amend: false,
  };
  private readonly listeners = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight = false;
  private again = false;
  private wantHistory = false;
  private lastEnded = 0;
  /** The text of the last status, to skip a re-render when nothing changed. */
  private lastStatusText = "";

  constructor(
    private readonly api: GitApi,
    private readonly editor: OpenFiles,
  ) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): GitSnapshot => this.snapshot;

  /** Changes from the watch stream: files changed (status), or .git did (status, branches and log too). */
  readonly onFileEvent: FileEventListener = (event) => {
    this.requestRefresh(event.kind !== "changes");
  };

  /** Reads everything now (the panel opening, a Refresh). */
  async load(): Promise<void> {
    await this.refresh(true, true);
  }

  /** Asks for a refresh soon; many asks while one runs make one more afterwards. */
  requestRefresh(history = false): void {
    this.wantHistory ||= history;
    if (this.timer !== undefined || this.inFlight) {
      this.again = true;
      return;
    }
    const wait = Math.max(REFRESH_DELAY_MS, this.lastEnded + REFRESH_GAP_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh(false, false);
    }, wait);
  }

  private async refresh(history: boolean, wake: boolean): Promise<void> {
    const withHistory = history || this.wantHistory;
    this.wantHistory = false;
    this.inFlight = true;
    try {
      const status = await this.api.status({ wake });
      this.setStatus(status);
      if (withHistory && status.repository) await this.loadHistory(wake);
      if (this.snapshot.error) this.set({ error: undefined });
    } catch (cause) {
      // Asleep: keep what is shown; the watcher's next "ready" refreshes it.
      if (!(cause instanceof ApiRequestError && cause.code === ErrorCode.WORKSPACE_ASLEEP))
        this.set({ error: errorMessage(cause) });
    } finally {
      this.inFlight = false;
      this.lastEnded = Date.now();
      if (this.again) {
        this.again = false;
        this.requestRefresh();
      }
    }
  }

  /** Branches and the log; `wake: false` for the refreshes the page makes by itself. */
  private async loadHistory(wake = true): Promise<void> {
    const [branches, log] = await Promise.all([this.api.branches({ wake }), this.api.log(LOG_LIMIT, { wake })]);
    this.set({ branches, log });
  }

  private setStatus(status: GitStatus): void {
    const text = JSON.stringify(status);
    if (text === this.lastStatusText) return;
    this.lastStatusText = text;
    this.set({ status, marks: marksOf(status) });
  }

  // --- actions (each throws on failure) ---

  async init(): Promise<void> {
    this.setStatus(await this.api.init());
    await this.loadHistory();
  }

  async stage(paths: readonly string[]): Promise<void> {
    if (paths.length > 0) this.setStatus(await this.api.stage(paths));
  }

  async unstage(paths: readonly string[]): Promise<void> {
    if (paths.length > 0) this.setStatus(await this.api.unstage(paths));
  }

  /** Throws away working tree changes (the component asked first); open files show what is on disk again. */
  async discard(paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    this.setStatus(await this.api.discard(paths));
    this.reloadOpenFiles(paths);
  }

  setDraft(draft: string): void {
    this.set({ draft });
  }

  /** Amend: the box gets the last commit's message when it is empty. */
  setAmend(amend: boolean): void {
    const last = this.snapshot.log[0]?.subject ?? "";
    this.set({ amend, draft: amend && this.snapshot.draft.trim() === "" ? last : this.snapshot.draft });
  }

  /** Commits what is staged with the box's message. */
  async commit(): Promise<void> {
    await this.api.commit(this.snapshot.draft, this.snapshot.amend);
    this.set({ draft: "", amend: false });
    await this.refresh(true, true);
  }

  async createBranch(name: string): Promise<void> {
    const branches = await this.api.createBranch(name.trim());
    this.set({ branches });
    await this.refresh(true, true);
  }

  /** Switches branch (git refuses when local changes would be lost); open files follow the new branch. */
  async checkout(branch: string): Promise<void> {
    this.setStatus(await this.api.checkout(branch));
    this.reloadOpenFiles();
    await this.loadHistory();
  }

  /** Pull, push or fetch with git's progress shown as it comes; throws git's message when it fails. */
  async sync(kind: SyncKind): Promise<void> {
    if (this.snapshot.sync?.state === "running") return;
    let lines: string[] = [];
    const update = (change: Partial<SyncState>) =>
      this.set({ sync: { ...(this.snapshot.sync as SyncState), ...change } });
    this.set({ sync: { kind, state: "running", lines } });
    try {
      await this.api.sync(kind, (event: GitSyncEvent) => {
        if (event.type === "progress") update({ progress: event.text });
        if (event.type === "output") {
          lines = [...lines, event.text].slice(-SYNC_LINES);
          update({ lines });
        }
      });
      update({ state: "done" });
    } catch (cause) {
      update({ state: "failed", message: errorMessage(cause) });
      throw cause;
    } finally {
      if (kind === "pull") this.reloadOpenFiles();
      await this.refresh(true, true);
    }
  }

  /** A failure from outside the panel (a command), shown in it until dismissed. */
  fail(cause: unknown): void {
    this.set({ error: errorMessage(cause) });
  }

  dismissError(): void {
    this.set({ error: undefined });
  }

  dismissSync(): void {
    this.set({ sync: undefined });
  }

  /** Shows a file's change side by side: HEAD ↔ index when staged, else index ↔ working tree. */
  async openDiff(path: string, staged: boolean): Promise<void> {
    this.set({ diff: { path, staged } });
    try {
      const diff = await this.api.diff(path, staged);
      if (this.snapshot.diff?.path === path && this.snapshot.diff.staged === staged)
        this.set({ diff: { path, staged, diff } });
    } catch (cause) {
      this.set({ diff: { path, staged, error: errorMessage(cause) } });
    }
  }

  closeDiff(): void {
    this.set({ diff: undefined });
  }

  /** The paths of a group, for "stage all" and the like. */
  paths(group: "staged" | "changed" | "untracked" | "conflicted"): string[] {
    const status = this.snapshot.status;
    return status?.repository ? status[group].map((change) => change.path) : [];
  }

  private reloadOpenFiles(only?: readonly string[]): void {
    const wanted = only ? new Set(only) : undefined;
    for (const buffer of this.editor.list()) {
      if (!wanted || wanted.has(buffer.path)) void this.editor.reload(buffer.path);
    }
  }

  private set(change: Partial<GitSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...change };
    for (const listener of this.listeners) listener();
  }
}

/** The tree's marks: a conflict wins over a change in the working tree, which wins over a staged one. */
export function marksOf(status: GitStatus): Map<string, GitChangeCode | "•"> {
  const marks = new Map<string, GitChangeCode | "•">();
  if (!status.repository) return marks;
  const mark = (changes: readonly GitFileChange[]) => {
    for (const change of changes) {
      marks.set(change.path, change.code);
      for (let dir = parentOf(change.path); dir !== "."; dir = parentOf(dir)) {
        if (marks.has(dir)) break;
        marks.set(dir, "•");
      }
    }
  };
  mark(status.untracked);
  mark(status.staged);
  mark(status.changed);
  mark(status.conflicted);
  return marks;
}
