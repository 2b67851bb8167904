import type { BackupReason, BackupRecord } from "../../protocol/backups";
import { type ErrorBody, ErrorCode } from "../../protocol/errors";
import type { BootPhase, MoveReason, RestoreNotice, SaveResult, WorkspaceStatus } from "../../protocol/workspace";
import { Activity } from "../activity";
import type { AlarmScheduler } from "../alarms";
import { AppError, describe } from "../errors";
import { SNAPSHOT_MARKER, WORKSPACE_ROOT } from "../sandbox/environment";
import type { InstanceType } from "../sandbox/instance-type";
import type { SandboxControl } from "../sandbox/sandbox";
import { LATE, within } from "../within";
import { DiskLock } from "./disk-lock";
import { failedStartPause, type LifecycleSettings, platformTimeoutMs } from "./settings";
import { canTransition, type LifecycleState } from "./state";

/** The latest good snapshot, kept in Durable Object storage. */
export interface SnapshotRecord {
  id: string;
  /** When it was taken (ms since epoch). */
  savedAt: number;
  /** When a start last restored it; a restore resets its 30-day expiry. */
  restoredAt?: number;
  /** The image its container started from (absent in snapshots taken before images were recorded). */
  image?: string;
}

/** What a start comes from: the snapshot, the current image plus a backup, or the image and its template. */
export type StartPlan =
  | { from: "snapshot"; snapshot: SnapshotRecord }
  | { from: "backup"; backups: BackupRecord[]; reason: MoveReason }
  | { from: "template" };

/**
 * The user's files kept apart from the system (worker/backups/): taken with
 * every save that stops the container and daily, restored on a start that
 * cannot use the snapshot.
 */
export interface FileBackups {
  /** Newest first. */
  list(): Promise<BackupRecord[]>;
  /** Verifies, then replaces the files; throws (nothing changed) when it cannot. */
  /** `fresh`: the container is new from the image and nothing touched its files yet (a quicker restore may apply). */
  restoreInto(record: BackupRecord, fresh?: boolean): Promise<void>;
  /** Takes one; a failure is recorded for the status and never thrown. */
  attempt(reason: BackupReason): Promise<unknown>;
  /** Takes one, or throws why not. */
  create(reason: BackupReason): Promise<BackupRecord>;
  /** Whether the daily backup (or the retry of a failed one) is due; `since`: when the container started. */
  due(now: number, since: number): Promise<boolean>;
}

/**
 * A snapshot is trusted this long after it was taken or last restored:
 * Cloudflare keeps it 30 days, and a start must not race its expiry.
 */
export const SNAPSHOT_TRUST_MS = 25 * 24 * 60 * 60 * 1000;

export const SNAPSHOT_KEY = "lifecycle:snapshot";
/** A snapshot that failed to restore, kept after "start fresh" for support. */
const ABANDONED_KEY = "lifecycle:abandoned";
const CHECK_TASK = "lifecycle-check";
/** How long a deletion waits for its container's removal (see Lifecycle.destroyWithin). */
export const RETIRE_DESTROY_MS = 20_000;
const LAST_ACTIVE_KEY = "lifecycle:last-active";
/**
 * Set when the workspace stopped its container on purpose (Stop, idle sleep),
 * cleared when a container starts: a restarted object knows it sleeps. A
 * container gone without it vanished (removed from outside, a host failure):
 * the next connection, even an automatic reconnect, brings it back from the
 * latest snapshot.
 */
const SLEPT_KEY = "lifecycle:slept";
/** Set once a container has started: a later start without SLEPT_KEY replaces one that vanished. */
const STARTED_KEY = "lifecycle:started";
/** The RestoreNotice of the running container, until the workspace next sleeps on purpose. */
const RESTORED_KEY = "lifecycle:restored";
/** Set by "Move to the current image": the next start uses the image and the latest backup. */
const MOVE_KEY = "lifecycle:move";
/** The image the running (or last) container started from; "" when unknown (an old snapshot). */
const SYSTEM_KEY = "lifecycle:image";
/** Where user changes live. `-xdev` keeps find off /proc and mounts. */
const WATCHED = [WORKSPACE_ROOT, "/root", "/home", "/usr/local", "/opt", "/etc"];

export interface StartTimings {
  /** Pause before attempt N+1 is N times this. */
  retryDelayMs: number;
  /** One attempt that never answers is given up after this. */
  attemptTimeoutMs: number;
  /** How long one attempt waits for exec() to stop answering "not running". */
  attemptWaitMs: number;
  /**
   * Starts are tried at least `attempts` times and for at least `budgetMs`: a
   * start that fails fast (monitor() reports it at once) can meet the engine
   * still removing a container that vanished a moment ago.
   */
  attempts: number;
  budgetMs: number;
  /** The budget of a start from a snapshot: one that fails is mostly gone for good, and has a fallback. */
  snapshotBudgetMs: number;
  /** How long a status probe waits out a paused or not-yet-running container. */
  probeWaitMs: number;
}

const START_TIMINGS: StartTimings = {
  retryDelayMs: 1000,
  attemptTimeoutMs: 45_000,
  attemptWaitMs: 20_000,
  attempts: 4,
  // A loaded engine refused every start from the image for up to 40 s at a time here (workerd says
  // only "Container failed to start"); a person would rather wait a minute than be told to try again.
  budgetMs: 60_000,
  snapshotBudgetMs: 20_000,
  probeWaitMs: 5_000,
};

export interface StartOptions {
  image: string;
  enableInternet: boolean;
  /** vCPU, memory and disk; the platform's default when absent. */
  instance?: InstanceType;
  /**
   * Where the container's outbound HTTP and HTTPS go (the network policy's
   * entrypoint), registered on every start before anything runs in it.
   */
  outbound?: Fetcher;
  /** More of the container's environment (the test Worker's small disk). */
  env?: Record<string, string>;
}

/** The Durable Object storage calls the lifecycle makes (a Map fits it in unit tests). */
export interface LifecycleStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
}

export interface LifecycleDeps {
  storage: LifecycleStorage;
  sandbox: SandboxControl;
  alarms: AlarmScheduler;
  settings: () => Promise<LifecycleSettings>;
  startOptions: () => StartOptions;
  /**
   * Runs as soon as a new container answers, beside the restore of a
   * backup's files (so never anything that reads or writes /workspace or
   * /root: the resident agent, the interception CA, preview hostnames). A
   * start waits for it before the container counts as running; a failure is
   * logged, not a failed start.
   */
  afterLaunch?: () => Promise<void>;
  /**
   * Called when a start attempt's container is about to get its first
   * command (its intercepts are in place), beside that command: for what
   * starts itself again if the attempt fails (the resident agent).
   */
  onLaunch?: () => void;
  /** Runs once a new container answers and has its files, before it counts as running (the template, the setup recipe). */
  afterStart?: (from: StartPlan["from"]) => Promise<void>;
  /** Backups of the user's files; without them a start uses the snapshot or the template only. */
  backups?: FileBackups;
  /**
   * The save journal (save-journal.ts): a start puts back what was
   * acknowledged since what it started from; a snapshot drops what it holds.
   */
  journal?: {
    replay(since: number): Promise<number>;
    dropThrough(savedAt: number): Promise<void>;
  };
  /** Hibernatable WebSockets, which count as open connections too. */
  hibernatedSockets?: () => number;
  /**
   * True while the container holds nothing of anyone's (an unclaimed spare,
   * worker/lifecycle/spare.ts): the alarm neither saves, backs up nor stops
   * it; the spare's own alarm discards it.
   */
  disposable?: () => boolean;
  /** Names the workspace in log lines. */
  tag: string;
  timings?: Partial<StartTimings>;
}

/**
 * The life of one workspace's container: start or wake from the latest
 * snapshot, save, stop, delete, and the alarm that saves while files change
 * and saves + stops when nobody uses the workspace. Its state is one
 * {@link LifecycleState}; {@link transition} is the only place it changes.
 */
export class Lifecycle {
  readonly activity: Activity;
  private state: LifecycleState = { kind: "stopped" };
  /** Saves and stops have the disk alone; file operations share it. */
  private readonly disk = new DiskLock();
  private readonly timings: StartTimings;

  constructor(private readonly deps: LifecycleDeps) {
    this.timings = { ...START_TIMINGS, ...deps.timings };
    this.activity = new Activity((at) => void deps.storage.put(LAST_ACTIVE_KEY, at).catch(() => {}));
    deps.alarms.register(CHECK_TASK, () => this.check());
  }

  /** Reads what a restarted object must know: whether a container still runs, or it sleeps. */
  async load(): Promise<void> {
    if (this.state.kind !== "stopped") return;
    // Restoring, not a change: nothing happened, this object only learns where things are.
    if (this.deps.sandbox.running) this.transition({ kind: "running", startedAt: 0 }, { restoring: true });
    else if ((await this.deps.storage.get<boolean>(SLEPT_KEY)) === true) {
      this.transition({ kind: "sleeping" }, { restoring: true });
    }
  }

  /**
   * The one place the state changes. Deleted is final; anything not in the
   * table is refused, except what a restarted object restores (from its
   * first, stopped, state only). Subscribers hear when a container starts
   * running and when it is gone.
   */
  private transition(next: LifecycleState, { restoring = false } = {}): boolean {
    const from = this.state.kind;
    if (!(restoring ? from === "stopped" : canTransition(from, next.kind))) {
      if (from !== "deleted") console.warn(`${this.deps.tag}: refused ${from} → ${next.kind}`);
      return false;
    }
    this.state = next;
    const wasRunning = hasRunningContainer(from);
    if (!wasRunning && hasRunningContainer(next.kind)) this.emit(this.runningListeners);
    else if (hasContainer(from) && !hasContainer(next.kind)) this.emit(this.stoppedListeners);
    return true;
  }

  /** The check of confirmAlive() in progress, shared by its callers. */
  private aliveCheck: Promise<boolean> | undefined;
  private readonly runningListeners = new Set<() => void>();
  private readonly stoppedListeners = new Set<() => void>();

  /** Calls `listener` each time a container starts running (after its start, or found running); returns a way to stop. */
  onRunning(listener: () => void): () => void {
    this.runningListeners.add(listener);
    return () => this.runningListeners.delete(listener);
  }

  /** Calls `listener` each time the container is gone (stopped, slept, vanished, deleted); returns a way to stop. */
  onStopped(listener: () => void): () => void {
    this.stoppedListeners.add(listener);
    return () => this.stoppedListeners.delete(listener);
  }

  private emit(listeners: Set<() => void>): void {
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        console.error(`${this.deps.tag}: a lifecycle listener failed: ${describe(error)}`);
      }
    }
  }

  /** True while the container runs and answers (a save in progress included). */
  get isRunning(): boolean {
    return hasRunningContainer(this.observe().kind);
  }

  /** True while there is a container: starting, running, being saved or being stopped. */
  get hasContainer(): boolean {
    return hasContainer(this.observe().kind);
  }

  /**
   * The state, after noticing a container that vanished under a running
   * workspace (removed from outside, a host failure): it is then stopped, and
   * the next use restores the latest snapshot.
   */
  private observe(): LifecycleState {
    if (this.state.kind === "running" && !this.deps.sandbox.running) {
      console.warn(`${this.deps.tag}: the container is gone`);
      this.transition({ kind: "stopped" });
    }
    return this.state;
  }

  get kind(): LifecycleState["kind"] {
    return this.observe().kind;
  }

  /** Read through a getter: TypeScript would keep a narrowing of `this.state` across awaits. */
  private get isDeleted(): boolean {
    return this.state.kind === "deleted";
  }

  /** True while a start runs: the container may not answer exec yet. */
  get isStarting(): boolean {
    return this.state.kind === "starting";
  }

  /**
   * Whether the workspace sleeps by choice (stopping or stopped) or failed to
   * start a moment ago, as opposed to running or having lost its container.
   * Connections that must not wake a sleeping workspace ask this.
   */
  isAsleep(now = Date.now()): boolean {
    const state = this.observe();
    if (state.kind === "sleeping" || state.kind === "stopping") return true;
    return state.kind === "failed" && now < state.retryAt;
  }

  /** Why the last start failed, while that is the workspace's state. */
  get failureMessage(): string | undefined {
    return this.state.kind === "failed" ? this.state.failure.message : undefined;
  }

  /**
   * Runs a file operation: it shares the disk with others, but never with a
   * save and the stop after it (see DiskLock).
   */
  shared<T>(operation: () => Promise<T>): Promise<T> {
    return this.disk.shared(operation);
  }

  /** Runs an operation that must have the disk alone (a save, a stop, an import). */
  exclusive<T>(operation: () => Promise<T>): Promise<T> {
    return this.disk.exclusive(operation);
  }

  /**
   * The workspace is being deleted: from now on nothing starts its container
   * (a request that was already waiting for a start must not bring it back),
   * and the container goes, after a start or stop in progress if there is one.
   */
  async retire(): Promise<void> {
    const before = this.state;
    this.transition({ kind: "deleted" });
    if (before.kind === "starting" || before.kind === "stopping") await before.done.catch(() => {});
    if (this.deps.sandbox.running) await this.destroyWithin(RETIRE_DESTROY_MS);
    await this.deps.alarms.cancel(CHECK_TASK);
  }

  /**
   * Destroys the container, but a deletion does not wait on it for long: a
   * container removed from outside just before (docker rm -f) left workerd's
   * destroy unanswered for minutes on the local platform. The deletion goes
   * on; the platform removes a container whose Durable Object is gone.
   * A destroy that fails still fails the deletion (it can be tried again).
   */
  private async destroyWithin(ms: number): Promise<void> {
    if ((await within(this.deps.sandbox.destroy(), ms)) === LATE) {
      console.warn(`deleting: the container's removal did not finish within ${ms / 1000} s; the deletion goes on`);
    }
  }

  /**
   * For reads, which never wake a workspace: waits out a start or a stop in
   * progress, then resolves if the container runs and throws
   * WORKSPACE_ASLEEP if not. A read that arrived during a Save and sleep
   * must not start the container again once the stop is done.
   */
  whenAwake(): Promise<void> {
    return this.whenSettled(() => {
      throw new AppError(
        ErrorCode.WORKSPACE_ASLEEP,
        "The workspace is not running, and reading never wakes it: wake it first (POST /api/workspaces/{id}/wake, or Wake in the IDE).",
      );
    });
  }

  /** Starts or wakes the container when it is not running; concurrent callers share one start. */
  ensureRunning(): Promise<void> {
    this.activity.touch();
    return this.whenSettled((state) => {
      const failures = state.kind === "failed" ? state.failures : 0;
      const next: LifecycleState = { kind: "starting", failures, done: Promise.resolve() };
      next.done = this.start(next);
      this.transition(next);
      return next.done;
    });
  }

  /**
   * Resolves once the container runs, waiting out a start or a stop in
   * progress; when there is none (stopped, sleeping, failed), `idle` decides.
   * Callers wait for a whole start (`running` is true from start() on, before
   * the container answers): a status probe could otherwise find it not
   * answering yet and destroy it mid-start.
   */
  private async whenSettled(
    idle: (state: Extract<LifecycleState, { kind: "stopped" | "sleeping" | "failed" }>) => Promise<void>,
  ): Promise<void> {
    for (;;) {
      const state = this.observe();
      switch (state.kind) {
        case "deleted":
          throw deleted();
        case "running":
        case "saving":
          return;
        case "starting":
          return state.done;
        case "stopping":
          await state.done.catch(() => {});
          continue;
        default:
          return idle(state);
      }
    }
  }

  /** The phase of the start in progress, if it is still `starting`'s (a new state, never a change in place). */
  private setPhase(starting: LifecycleState & { kind: "starting" }, phase: BootPhase | undefined): void {
    const state = this.state;
    if (state.kind === "starting" && state.done === starting.done) this.transition({ ...state, phase });
  }

  /**
   * Where a start comes from: the snapshot when it was made from the current
   * image and is well inside its 30 days; otherwise the current image plus
   * the latest backup; the template when neither exists. A snapshot newer
   * than the latest backup (a checkpoint after it) holds work the backup
   * lacks, so an image change alone does not leave it behind.
   */
  private async plan(image: string, now = Date.now()): Promise<StartPlan> {
    const snapshot = await this.deps.storage.get<SnapshotRecord>(SNAPSHOT_KEY);
    const backups = (await this.deps.backups?.list()) ?? [];
    const latest = backups[0];
    if (!snapshot) return latest ? { from: "backup", backups, reason: "snapshot-unavailable" } : { from: "template" };
    if (!latest) return { from: "snapshot", snapshot };
    if (await this.deps.storage.get<boolean>(MOVE_KEY)) return { from: "backup", backups, reason: "image-changed" };
    if (now - Math.max(snapshot.savedAt, snapshot.restoredAt ?? 0) >= SNAPSHOT_TRUST_MS) {
      return { from: "backup", backups, reason: "snapshot-expired" };
    }
    if (snapshot.image !== image && Date.parse(latest.createdAt) >= snapshot.savedAt) {
      return { from: "backup", backups, reason: "image-changed" };
    }
    return { from: "snapshot", snapshot };
  }

  private async start(starting: LifecycleState & { kind: "starting" }): Promise<void> {
    // Nothing before the first await: the caller records the state first.
    const { image } = this.deps.startOptions();
    let plan = await this.plan(image);
    const { sandbox, tag } = this.deps;
    let kernel: string;
    let launched: Promise<void> = Promise.resolve();
    try {
      try {
        kernel = await this.launch(starting, plan);
      } catch (error) {
        // A snapshot that cannot be restored (expired, removed) is no loss when a backup holds the files.
        const backups = plan.from === "snapshot" ? ((await this.deps.backups?.list()) ?? []) : [];
        if (backups.length === 0 || this.isDeleted) throw error;
        console.warn(`${tag}: the snapshot could not be restored (${describe(error)}); using the latest backup`);
        plan = { from: "backup", backups, reason: "snapshot-unavailable" };
        kernel = await this.launch(starting, plan);
      }
      // The container's own set-up goes on while a backup's files come in: the restore is
      // seconds of the container's CPU and I/O, these steps a few round trips.
      launched = this.afterLaunch();
      if (plan.from === "backup") {
        this.setPhase(starting, "restoring-backup");
        plan = { ...plan, backups: [await this.restoreLatest(plan.backups)] };
      }
    } catch (error) {
      // Settled before the container goes, so nothing of it runs against the next one.
      await launched;
      if (sandbox.running) await sandbox.destroy().catch(() => {});
      if (this.isDeleted) throw deleted();
      const reason = describe(error).replace(/\.+$/, "");
      const failure: ErrorBody =
        plan.from === "snapshot"
          ? {
              code: ErrorCode.SNAPSHOT_RESTORE_FAILED,
              message: `The workspace's latest snapshot (saved ${new Date(plan.snapshot.savedAt).toISOString()}) could not be restored (${reason}). Your files are not in a new container. Start fresh (a new workspace from its template) or import an archive you exported.`,
            }
          : plan.from === "backup"
            ? {
                code: error instanceof AppError ? error.code : ErrorCode.CONTAINER_UNAVAILABLE,
                message: `The workspace could not start with the files of its latest backup (${reason}). Nothing was lost: it tries again.`,
              }
            : { code: ErrorCode.CONTAINER_UNAVAILABLE, message: `The container could not start: ${reason}` };
      this.fail(failure, starting.failures);
      throw new AppError(failure.code, failure.message);
    }
    try {
      // Saves acknowledged after what the container came from, before anyone sees it.
      await this.deps.journal?.replay(startedFrom(plan));
    } catch (error) {
      await launched;
      if (sandbox.running) await sandbox.destroy().catch(() => {});
      if (this.isDeleted) throw deleted();
      const failure: ErrorBody = {
        code: error instanceof AppError ? error.code : ErrorCode.CONTAINER_UNAVAILABLE,
        message: `Files saved since the workspace's last checkpoint could not be put back (${describe(error).replace(/\.+$/, "")}). Nothing was lost: they stay in the journal, and it tries again.`,
      };
      this.fail(failure, starting.failures);
      throw new AppError(failure.code, failure.message);
    }
    if (this.isDeleted) {
      // Deleted while it started: it must not outlive the workspace.
      await launched;
      await sandbox.destroy().catch(() => {});
      throw deleted();
    }
    const snapshot = plan.from === "snapshot" ? plan.snapshot : undefined;
    await this.deps.storage.delete(MOVE_KEY);
    await this.deps.storage.put(SYSTEM_KEY, snapshot ? (snapshot.image ?? "") : image);
    await this.noteStart(plan);
    await this.deps.storage.delete(SLEPT_KEY);
    await Promise.all([
      launched,
      this.deps.afterStart?.(plan.from).catch((error) => console.error(`${tag} after start: ${describe(error)}`)),
    ]);
    this.setPhase(starting, "ready");
    const settings = await this.deps.settings();
    await sandbox.setInactivityTimeout(platformTimeoutMs(settings));
    if (snapshot) await this.deps.storage.put(SNAPSHOT_KEY, { ...snapshot, restoredAt: Date.now() });
    await this.deps.alarms.scheduleNoLaterThan(CHECK_TASK, Date.now() + settings.checkMs);
    if (!this.transition({ kind: "running", kernel, startedAt: Date.now() })) {
      await sandbox.destroy().catch(() => {});
      throw deleted();
    }
  }

  /** {@link LifecycleDeps.afterLaunch}, never rejecting. */
  private async afterLaunch(): Promise<void> {
    await this.deps
      .afterLaunch?.()
      .catch((error) => console.error(`${this.deps.tag} after launch: ${describe(error)}`));
  }

  /** Starts a container for `plan` (from the snapshot, else the image), trying a few times; returns `uname -a`. */
  private async launch(starting: LifecycleState & { kind: "starting" }, plan: StartPlan): Promise<string> {
    const { sandbox, tag } = this.deps;
    const { image, enableInternet, instance, outbound, env: extraEnv } = this.deps.startOptions();
    // Never the bare image when a snapshot or backup holds files: a start from
    // a backup restores it before anyone sees the container.
    // The machine size also goes in the environment: the local engine proxy
    // (scripts/lib/engine-proxy.mjs) gives the container its limits from it.
    const env = { ...extraEnv, ...(instance ? { CLOUD_IDE_MACHINE: instance } : {}) };
    const common = { enableInternet, instance, ...(Object.keys(env).length > 0 ? { env } : {}) };
    const options: ContainerStartupOptions =
      plan.from === "snapshot" ? { containerSnapshot: { id: plan.snapshot.id }, ...common } : { image, ...common };
    // A start can fail on its way up: right after a container vanished the
    // engine may still tear the old one down, and a slow local Docker engine
    // can miss workerd's wait for the network sidecar. Try a few times.
    const began = Date.now();
    const giveUpAt = began + (plan.from === "snapshot" ? this.timings.snapshotBudgetMs : this.timings.budgetMs);
    console.log(`${tag} starting from ${plan.from === "snapshot" ? `snapshot ${plan.snapshot.id}` : `image ${image}`}`);
    for (let attempt = 1; ; attempt++) {
      if (this.isDeleted) throw deleted();
      try {
        const kernel = await this.startOnce(starting, options, plan.from === "snapshot", outbound);
        console.log(`${tag} answered after ${Date.now() - began} ms (attempt ${attempt})`);
        return kernel;
      } catch (error) {
        if (attempt >= this.timings.attempts && Date.now() >= giveUpAt) throw error;
        console.warn(`${tag}: start attempt ${attempt} failed (${describe(error)}); trying again`);
        await sandbox.destroy().catch(() => {});
        await sleep(this.timings.retryDelayMs * Math.min(attempt, 5));
      }
    }
  }

  /**
   * Puts the newest backup that verifies into the new container; a damaged
   * one is skipped for the one before it. Returns the one restored.
   */
  private async restoreLatest(backups: BackupRecord[]): Promise<BackupRecord> {
    let lastError: unknown;
    for (const [index, record] of backups.entries()) {
      try {
        // Only the first attempt meets the image's files untouched: after a refused one, a full restore.
        await this.deps.backups?.restoreInto(record, index === 0);
        return record;
      } catch (error) {
        lastError = error;
        if (!(error instanceof AppError && error.code === ErrorCode.BACKUP_INTEGRITY)) throw error;
        console.error(`${this.deps.tag}: backup ${record.id} is damaged (${describe(error)}); trying the one before`);
      }
    }
    throw lastError ?? new Error("no backup");
  }

  /**
   * A start that follows a container which vanished (one ran, and nobody
   * stopped it) lost what changed after the latest snapshot: remember what
   * the new one came back from, for the page to say so.
   */
  private async noteStart(plan: StartPlan): Promise<void> {
    const { storage } = this.deps;
    const [started, slept] = await Promise.all([storage.get<boolean>(STARTED_KEY), storage.get<boolean>(SLEPT_KEY)]);
    if (!started) await storage.put(STARTED_KEY, true);
    if (plan.from === "backup") {
      // Moved to the current image: always said, with the backup the files came from.
      const backup = plan.backups[0];
      const notice: RestoreNotice = {
        at: new Date().toISOString(),
        from: "backup",
        savedAt: backup?.createdAt ?? null,
        reason: plan.reason,
      };
      console.warn(`${this.deps.tag}: started on the current image with backup ${backup?.id} (${plan.reason})`);
      await storage.put(RESTORED_KEY, notice);
      return;
    }
    if (!started || slept) return;
    const snapshot = plan.from === "snapshot" ? plan.snapshot : undefined;
    const notice: RestoreNotice = {
      at: new Date().toISOString(),
      from: snapshot ? "snapshot" : "template",
      savedAt: snapshot ? new Date(snapshot.savedAt).toISOString() : null,
    };
    console.warn(`${this.deps.tag}: its container vanished; the new one came from the ${notice.from}`);
    await storage.put(RESTORED_KEY, notice);
  }

  private fail(failure: ErrorBody, failuresBefore: number): void {
    const failures = failuresBefore + 1;
    if (this.transition({ kind: "failed", failure, failures, retryAt: Date.now() + failedStartPause(failures) })) {
      console.error(`${this.deps.tag}: ${failure.message}`);
    }
  }

  /** Starts the container and waits until it answers; returns `uname -a`. */
  private async startOnce(
    starting: LifecycleState & { kind: "starting" },
    options: ContainerStartupOptions,
    fromSnapshot: boolean,
    outbound: Fetcher | undefined,
  ): Promise<string> {
    const { sandbox, tag } = this.deps;
    this.setPhase(starting, fromSnapshot ? "restoring-snapshot" : "starting-container");
    sandbox.start(options);
    if (fromSnapshot) this.setPhase(starting, "starting-container");
    // The first exec waits until the container answers; a start that never
    // answers is reported instead of holding every request forever.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.timings.attemptTimeoutMs / 1000} s`)),
        this.timings.attemptTimeoutMs,
      );
    });
    // monitor() settles when the container stops: before it answered, that is
    // a failed start (a snapshot that cannot be restored, an image that
    // cannot run), reported at once rather than after the wait. A pending
    // monitor() holds the object in memory (up to 15 minutes) and holds off
    // the platform's inactivity timeout; the alarm enforces the idle limit.
    const monitor = sandbox.monitor();
    const exited = monitor.then(
      () => Promise.reject(new Error("the container stopped as it started")),
      (error: unknown) => Promise.reject(new Error(`the container failed to start: ${describe(error)}`)),
    );
    try {
      // Intercepts end with a container: a new one gets them before any command runs in it.
      const answered = (async () => {
        if (outbound) await sandbox.interceptOutbound(outbound);
        // The resident agent's process starts beside the first command, not after it answered.
        this.deps.onLaunch?.();
        return this.uname(this.timings.attemptWaitMs);
      })();
      answered.catch(() => {});
      const kernel = await Promise.race([answered, timeout, exited]);
      // For the log: when it stops, and how (a crash or removal reads as an error).
      monitor.then(
        () => console.log(`${tag} stopped`),
        (error: unknown) => console.warn(`${tag} stopped: ${describe(error)}`),
      );
      return kernel;
    } finally {
      clearTimeout(timer);
      exited.catch(() => {});
    }
  }

  /**
   * Checks that a running container still answers, and stops the workspace
   * when it does not, so the next use brings it back from the latest save
   * (with the notice of what was lost). The status probe's check; concurrent
   * callers share one. False when it stopped the workspace.
   */
  confirmAlive(): Promise<boolean> {
    if (!this.aliveCheck) {
      this.aliveCheck = this.probeOnce().finally(() => {
        this.aliveCheck = undefined;
      });
    }
    return this.aliveCheck;
  }

  private async probeOnce(): Promise<boolean> {
    const state = this.observe();
    // A container being saved is there (and frozen for the moment): a probe
    // then would mistake it for a dead one. Otherwise the probe waits out a
    // short freeze, but not a container that is gone.
    if (state.kind !== "running") return true;
    try {
      const kernel = await this.uname(this.timings.probeWaitMs);
      const now = this.state;
      if (now.kind === "running" && now.startedAt === state.startedAt) this.transition({ ...now, kernel });
      return true;
    } catch (error) {
      // The container is gone (or broken): its unsaved changes are lost
      // either way, so the next use starts again from the latest snapshot.
      // Noticed meanwhile (workerd reported its exit, and a new start may be
      // under way): a destroy now would end that new container.
      if (this.state !== state) return true;
      console.warn(`${this.deps.tag}: the container does not answer (${describe(error)}); it starts again on next use`);
      await this.deps.sandbox.destroy().catch(() => {});
      if (this.state === state) this.transition({ kind: "stopped" });
      return false;
    }
  }

  /** `uname -a`, never waking the container; `waitMs` waits out one that exec() still finds "not running". */
  private async uname(waitMs: number): Promise<string> {
    return (await this.deps.sandbox.stdout(["uname", "-a"], { wake: false, waitMs })).trim();
  }

  /** Brings the next check forward after the timings changed. */
  async rescheduleCheck(): Promise<void> {
    if (this.deps.sandbox.running) {
      await this.deps.alarms.scheduleNoLaterThan(CHECK_TASK, Date.now() + (await this.deps.settings()).checkMs);
    }
  }

  /**
   * `GET status`: wakes the workspace and checks it answers. A container
   * removed from outside is noticed here and replaced by one restored from
   * the latest snapshot.
   */
  async wake(id: string): Promise<WorkspaceStatus> {
    try {
      // A container this call saw start answered its start's own `uname` a
      // moment ago: only one that was already running needs the check.
      const wasRunning = this.observe().kind === "running";
      await this.ensureRunning();
      // A container that does not answer is stopped by the check: start it again.
      if (wasRunning && !(await this.confirmAlive())) await this.ensureRunning();
    } catch (error) {
      // A failed start already says why; a workspace deleted meanwhile did not fail: it is gone.
      const kind = this.state.kind;
      if (kind !== "failed" && kind !== "deleted") {
        console.error(`workspace ${id}: the container could not start: ${describe(error)}`);
      }
    }
    return this.status(id);
  }

  /** The state as it is now, without starting anything and without counting as activity. */
  async status(id: string): Promise<WorkspaceStatus> {
    const snapshot = await this.deps.storage.get<SnapshotRecord>(SNAPSHOT_KEY);
    const settings = await this.deps.settings();
    const restored = await this.deps.storage.get<RestoreNotice>(RESTORED_KEY);
    const { image, instance } = this.deps.startOptions();
    const base = {
      id,
      machine: instance ?? "default",
      lastSavedAt: snapshot ? new Date(snapshot.savedAt).toISOString() : null,
      snapshotId: snapshot?.id ?? null,
      idleTimeoutSeconds: Math.round(settings.idleMs / 1000),
      ...(restored ? { restored } : {}),
    };
    const state = this.observe();
    switch (state.kind) {
      case "starting":
        return { ...base, state: "starting", phase: state.phase };
      case "running":
      case "saving": {
        const running = (await this.deps.storage.get<string>(SYSTEM_KEY)) ?? image;
        return {
          ...base,
          state: state.kind,
          phase: "ready",
          kernel: state.kernel,
          image: running || undefined,
          system: { image: running || null, current: running === image, machine: instance ?? "default" },
        };
      }
      // Its container is still there for the moment it takes to go.
      case "stopping":
        return { ...base, state: "running", phase: "ready" };
      case "failed":
        return { ...base, state: "failed", error: state.failure };
      default:
        return { ...base, state: snapshot ? "sleeping" : "stopped" };
    }
  }

  /** `POST save`: a snapshot now; answers once its id is stored. */
  save(): Promise<SaveResult> {
    return this.exclusive(async () => {
      await this.ensureRunning();
      return this.snapshot();
    });
  }

  /** `POST stop`: save, then stop the container. A sleeping workspace answers with its snapshot. */
  stop(): Promise<SaveResult> {
    return this.exclusive(async () => {
      if (this.kind !== "running" && this.kind !== "saving") {
        const snapshot = await this.deps.storage.get<SnapshotRecord>(SNAPSHOT_KEY);
        if (snapshot) return toResult(snapshot);
        await this.ensureRunning();
      }
      const saved = await this.snapshot();
      // The files to R2 too; a failure is reported in the status and does not keep it awake.
      await this.deps.backups?.attempt("stop");
      await this.stopNow();
      return saved;
    });
  }

  /**
   * Save, stop and start again, for a setting fixed when a container starts
   * (its Internet access). Files are kept; running programs are not.
   */
  async restart(): Promise<void> {
    if (this.kind === "running" || this.kind === "saving") await this.stop();
    await this.ensureRunning();
  }

  /**
   * "Move to the current image": save, back up (it must succeed), stop, and
   * start on the current image with that backup (then the setup recipe).
   */
  async upgrade(): Promise<void> {
    const backups = this.deps.backups;
    if (!backups) throw new AppError(ErrorCode.BACKUP_UNAVAILABLE, "This deployment keeps no backups.");
    await this.ensureRunning();
    await this.exclusive(async () => {
      const { image } = this.deps.startOptions();
      if ((await this.deps.storage.get<string>(SYSTEM_KEY)) === image) {
        throw new AppError(ErrorCode.INVALID_STATE, "The workspace already runs the current image.");
      }
      await this.snapshot();
      await backups.create("upgrade");
      await this.deps.storage.put(MOVE_KEY, true);
      await this.stopNow();
    });
    await this.ensureRunning();
  }

  /** "Start fresh" after a failed restore: forget the snapshot; the next start uses the image. */
  reset(): Promise<void> {
    return this.exclusive(async () => {
      if (this.state.kind !== "failed") {
        throw new AppError(
          ErrorCode.INVALID_STATE,
          "Only a workspace whose snapshot failed to restore can start fresh; this one has its files.",
        );
      }
      const snapshot = await this.deps.storage.get<SnapshotRecord>(SNAPSHOT_KEY);
      if (snapshot) await this.deps.storage.put(ABANDONED_KEY, snapshot);
      await this.deps.storage.delete(SNAPSHOT_KEY);
      // Starting from the template is the person's choice here, not a loss to report.
      await this.deps.storage.delete(STARTED_KEY);
      await this.deps.storage.delete(RESTORED_KEY);
      this.transition({ kind: "stopped" });
    });
  }

  /** Test hook: point the workspace at another snapshot id while it is not running. */
  async adoptSnapshot(id: string): Promise<void> {
    await this.exclusive(async () => {
      if (this.kind === "running") await this.stopNow();
      await this.deps.storage.put(SNAPSHOT_KEY, { id, savedAt: Date.now() } satisfies SnapshotRecord);
    });
  }

  /** Takes a snapshot of the running container and stores its id. Call inside {@link exclusive}. */
  async snapshot(): Promise<SaveResult> {
    const { sandbox, storage } = this.deps;
    const before = this.state;
    const saving: LifecycleState | undefined =
      before.kind === "running" ? { kind: "saving", kernel: before.kernel, startedAt: before.startedAt } : undefined;
    if (saving) this.transition(saving);
    try {
      const startedAt = Date.now();
      // Touch the marker before the snapshot so a file written during the
      // save counts as changed at the next check.
      await sandbox.stdout(["sh", "-c", `mkdir -p "$(dirname ${SNAPSHOT_MARKER})" && touch ${SNAPSHOT_MARKER}`], {
        wake: false,
        waitMs: 0,
      });
      const snapshot = await sandbox.snapshot();
      const image = await storage.get<string>(SYSTEM_KEY);
      const record: SnapshotRecord = { id: snapshot.id, savedAt: startedAt, ...(image ? { image } : {}) };
      await storage.put(SNAPSHOT_KEY, record);
      // What the snapshot holds leaves the journal; left there, it would only be replayed again (the same bytes).
      await this.deps.journal
        ?.dropThrough(startedAt)
        .catch((error) => console.error(`${this.deps.tag}: journal: ${describe(error)}`));
      return toResult(record);
    } catch (error) {
      throw new AppError(
        ErrorCode.SAVE_FAILED,
        `Saving the workspace failed: ${describe(error)}. It keeps running; try again.`,
      );
    } finally {
      if (saving && this.state === saving) this.transition(before);
    }
  }

  /** Destroys the container; starts wait until it is gone. Call inside {@link exclusive}. */
  private async stopNow(): Promise<void> {
    const { sandbox, storage, alarms } = this.deps;
    const stopping: LifecycleState = { kind: "stopping", done: Promise.resolve() };
    stopping.done = (async () => {
      // Before the container goes: a restarted object must know it sleeps.
      await storage.put(SLEPT_KEY, true);
      await storage.delete(RESTORED_KEY);
      await sandbox.destroy();
      await alarms.cancel(CHECK_TASK);
    })();
    // Set in the same turn as the caller's last check, so any request from
    // now on waits for the stop and then wakes a new container.
    if (!this.transition(stopping)) return;
    try {
      await stopping.done;
      this.transition({ kind: "sleeping" });
    } catch (error) {
      await storage.delete(SLEPT_KEY);
      this.transition({ kind: "running", startedAt: Date.now() });
      throw error;
    }
  }

  /** Whether files changed since the marker was touched (always true before the first save). */
  private async filesChanged(): Promise<boolean> {
    const script = `[ -e ${SNAPSHOT_MARKER} ] || { echo never-saved; exit 0; }; find ${WATCHED.join(" ")} -xdev -newer ${SNAPSHOT_MARKER} -print -quit 2>/dev/null; exit 0`;
    const out = await this.deps.sandbox.stdout(["sh", "-c", script], { wake: false, waitMs: 0 });
    return out.trim().length > 0;
  }

  /**
   * The alarm's check, every `checkMs` while the container runs: save and
   * stop an idle workspace (so the platform's timeout never kills unsaved
   * work), save a checkpoint when files changed, and refresh an old snapshot
   * before it expires.
   */
  private async check(): Promise<void> {
    const { sandbox, storage, alarms } = this.deps;
    const state = this.observe();
    if (state.kind !== "running" && state.kind !== "saving") return;
    const settings = await this.deps.settings();
    const now = Date.now();
    if (this.deps.disposable?.()) {
      await alarms.schedule(CHECK_TASK, now + settings.checkMs);
      return;
    }
    try {
      // A restarted object has no timeout until it sets one again.
      await sandbox.setInactivityTimeout(platformTimeoutMs(settings));
      const snapshot = await storage.get<SnapshotRecord>(SNAPSHOT_KEY);
      const storedLast = (await storage.get<number>(LAST_ACTIVE_KEY)) ?? 0;
      if (this.activity.isIdle(settings.idleMs, now, storedLast, this.deps.hibernatedSockets?.() ?? 0)) {
        await this.idleStop();
        if (!sandbox.running) return;
      } else {
        // A new workspace's first checkpoint comes a checkpoint interval after
        // its start, not at the first check: a snapshot pauses the container
        // while it is taken (locally `docker commit` freezes it).
        const savedAt = snapshot?.savedAt ?? state.startedAt;
        const lastTouch = Math.max(savedAt, snapshot?.restoredAt ?? 0);
        const checkpointDue = now - savedAt >= settings.checkpointMs && (await this.filesChanged());
        const refreshDue = snapshot !== undefined && now - lastTouch >= settings.refreshMs;
        if (checkpointDue || refreshDue) await this.exclusive(() => this.snapshot());
        // At least daily while in use (and again a while after one failed).
        const backups = this.deps.backups;
        if (backups && (await backups.due(now, state.startedAt))) await this.exclusive(() => backups.attempt("daily"));
      }
    } catch (error) {
      // Keep the container; the next check tries again.
      console.error(`${this.deps.tag} check: ${describe(error)}`);
    }
    if (sandbox.running) await alarms.schedule(CHECK_TASK, Date.now() + settings.checkMs);
  }

  /** Saves, then stops unless someone arrived during the save. */
  private async idleStop(): Promise<void> {
    const before = this.activity.lastActiveAt;
    await this.exclusive(async () => {
      await this.snapshot();
      const open = this.activity.connections + (this.deps.hibernatedSockets?.() ?? 0);
      if (open > 0 || this.activity.lastActiveAt !== before) return;
      await this.deps.backups?.attempt("stop");
      // Someone may have arrived during the backup.
      if (this.activity.connections + (this.deps.hibernatedSockets?.() ?? 0) > 0) return;
      await this.stopNow();
    });
  }
}

/** When what a start came from was saved: journaled operations from then on are missing from it. */
function startedFrom(plan: StartPlan): number {
  if (plan.from === "snapshot") return plan.snapshot.savedAt;
  if (plan.from === "backup") return Date.parse(plan.backups[0]?.createdAt ?? "") || 0;
  return 0;
}

function hasRunningContainer(kind: LifecycleState["kind"]): boolean {
  return kind === "running" || kind === "saving";
}

function hasContainer(kind: LifecycleState["kind"]): boolean {
  return kind === "starting" || kind === "running" || kind === "saving" || kind === "stopping";
}

function deleted(): AppError {
  return new AppError(ErrorCode.NOT_FOUND, "No such workspace: it was deleted.");
}

function toResult(record: SnapshotRecord): SaveResult {
  return { snapshotId: record.id, savedAt: new Date(record.savedAt).toISOString() };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
