import { type ErrorBody, ErrorCode } from "../../protocol/errors";
import type { BootPhase, SaveResult, WorkspaceStatus } from "../../protocol/workspace";
import { Activity } from "../activity";
import type { AlarmScheduler } from "../alarms";
import { AppError, describe } from "../errors";
import { IDE_STATE_DIR, WORKSPACE_ROOT } from "../sandbox/environment";
import type { SandboxControl } from "../sandbox/sandbox";
import { failedStartPause, type LifecycleSettings, platformTimeoutMs } from "./settings";

/** The latest good snapshot, kept in Durable Object storage. */
interface SnapshotRecord {
  id: string;
  /** When it was taken (ms since epoch). */
  savedAt: number;
  /** When a start last restored it; a restore resets its 30-day expiry. */
  restoredAt?: number;
}

const SNAPSHOT_KEY = "lifecycle:snapshot";
/** A snapshot that failed to restore, kept after "start fresh" for support. */
const ABANDONED_KEY = "lifecycle:abandoned";
const CHECK_TASK = "lifecycle-check";
const RETRY_DELAY_MS = 1000;
const START_TIMEOUT_MS = 45_000;
/** How long one attempt waits for exec() to stop answering "not running", and how many attempts. */
const START_ATTEMPT_MS = 20_000;
const START_ATTEMPTS = 4;
/**
 * Starts are tried again for at least this long: a start that fails fast
 * (monitor() reports it at once) can meet the engine still removing a
 * container that vanished a moment ago.
 */
const START_RETRY_BUDGET_MS = 20_000;
/** How long a status probe waits out a paused or not-yet-running container. */
const PROBE_WAIT_MS = 5_000;
const LAST_ACTIVE_KEY = "lifecycle:last-active";
/**
 * Set when the workspace stopped its container on purpose (Stop, idle sleep),
 * cleared when a container starts. A container that is gone without it
 * vanished (removed from outside, a host failure): the next connection,
 * even an automatic reconnect, brings it back from the latest snapshot.
 */
const SLEPT_KEY = "lifecycle:slept";
/** Touched right before each snapshot; files newer than it changed after the save began. */
const MARKER = `${IDE_STATE_DIR}/saved-at`;
/** Where user changes live. `-xdev` keeps find off /proc and mounts. */
const WATCHED = [WORKSPACE_ROOT, "/root", "/home", "/usr/local", "/opt", "/etc"];

export interface StartOptions {
  image: string;
  enableInternet: boolean;
}

/**
 * The life of one workspace's container: start or wake from the latest
 * snapshot, save, stop, and the alarm that saves while files change and
 * saves + stops when nobody uses the workspace.
 */
export class Lifecycle {
  readonly activity: Activity;
  private phase: BootPhase | undefined;
  private starting: Promise<void> | undefined;
  /** Set while a save + destroy runs; starts wait for it. */
  private stopping: Promise<void> | undefined;
  private saves = 0;
  private failure: ErrorBody | undefined;
  /** Set by retire(): the workspace is deleted and never starts again. */
  private retired = false;
  /** Failed starts in a row, and when an automatic start may try again (see failedStartPause). */
  private failures = 0;
  private retryAt = 0;
  private kernel: string | undefined;
  /** When this object last started the container: the first checkpoint counts from it. */
  private startedAt = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly sandbox: SandboxControl,
    private readonly alarms: AlarmScheduler,
    private readonly settings: () => Promise<LifecycleSettings>,
    private readonly startOptions: () => StartOptions,
    /** Runs once a new container answers (e.g. writing preview hostnames into it). */
    private readonly afterStart: (fromSnapshot: boolean) => Promise<void> = async () => {},
  ) {
    this.activity = new Activity((at) => void ctx.storage.put(LAST_ACTIVE_KEY, at).catch(() => {}));
    alarms.register(CHECK_TASK, () => this.check());
  }

  /** Which workspace a log line is about (the object's id, shortened). */
  private get tag(): string {
    return `container ${this.ctx.id.toString().slice(0, 8)}`;
  }

  /**
   * Runs operations that touch the disk one at a time, so a write cannot land
   * between a snapshot and the destroy that follows it (it would be lost).
   */
  exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation);
    this.queue = result.catch(() => {});
    return result;
  }

  /** True while a start runs: the container may not answer exec yet. */
  get isStarting(): boolean {
    return this.starting !== undefined;
  }

  /**
   * Whether the workspace sleeps by choice (stopping or stopped) or failed to
   * start a moment ago, as opposed to running or having lost its container.
   * Connections that must not wake a sleeping workspace ask this.
   */
  async isAsleep(): Promise<boolean> {
    if (this.stopping) return true;
    // The flag first: right after destroy() `running` can still read true.
    if ((await this.ctx.storage.get<boolean>(SLEPT_KEY)) === true) return true;
    if (this.sandbox.running || this.starting) return false;
    return this.failure !== undefined && Date.now() < this.retryAt;
  }

  /** Why the last start failed, while that is the workspace's state. */
  get failureMessage(): string | undefined {
    return this.sandbox.running ? undefined : this.failure?.message;
  }

  private fail(failure: ErrorBody): ErrorBody {
    this.failure = failure;
    this.failures++;
    this.retryAt = Date.now() + failedStartPause(this.failures);
    return failure;
  }

  /**
   * The workspace is being deleted: from now on nothing starts its container
   * (a request that was already waiting for a start must not bring it back),
   * and the container goes, after a start in progress if there is one.
   */
  async retire(): Promise<void> {
    this.retired = true;
    await this.starting?.catch(() => {});
    while (this.stopping) await this.stopping.catch(() => {});
    if (this.sandbox.running) await this.sandbox.destroy();
    await this.alarms.cancel(CHECK_TASK);
  }

  /** Starts or wakes the container when it is not running; concurrent callers share one start. */
  async ensureRunning(): Promise<void> {
    if (this.retired) throw deleted();
    this.activity.touch();
    while (this.stopping) await this.stopping.catch(() => {});
    // `running` is true from start() on, before the container answers and
    // before afterStart: callers wait for the whole start, or a status probe
    // could find it not answering yet and destroy it mid-start.
    if (this.starting) return this.starting;
    if (this.sandbox.running) return;
    this.starting = this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(): Promise<void> {
    const container = this.sandbox;
    const snapshot = await this.ctx.storage.get<SnapshotRecord>(SNAPSHOT_KEY);
    const { image, enableInternet } = this.startOptions();
    this.kernel = undefined;
    this.phase = snapshot ? "restoring-snapshot" : "starting-container";
    try {
      // Never fall back to the image when a snapshot exists: that would show
      // an empty workspace as if the user's files were gone.
      const options: ContainerStartupOptions = snapshot
        ? { containerSnapshot: { id: snapshot.id }, enableInternet }
        : { image, enableInternet };
      // A start can fail on its way up: right after a container vanished the
      // engine may still tear the old one down, and a slow local Docker engine
      // can miss workerd's wait for the network sidecar. Try a few times.
      const began = Date.now();
      const giveUpAt = began + START_RETRY_BUDGET_MS;
      console.log(`${this.tag} starting from ${snapshot ? `snapshot ${snapshot.id}` : `image ${image}`}`);
      for (let attempt = 1; ; attempt++) {
        if (this.retired) throw deleted();
        try {
          this.kernel = await this.startOnce(options, Boolean(snapshot));
          console.log(`${this.tag} answered after ${Date.now() - began} ms (attempt ${attempt})`);
          break;
        } catch (error) {
          if (attempt >= START_ATTEMPTS && Date.now() >= giveUpAt) throw error;
          console.warn(`${this.tag}: start attempt ${attempt} failed (${describe(error)}); trying again`);
          await container.destroy().catch(() => {});
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * attempt));
        }
      }
    } catch (error) {
      this.phase = undefined;
      if (container.running) await container.destroy().catch(() => {});
      if (this.retired) throw deleted();
      const reason = describe(error).replace(/\.+$/, "");
      const failure = this.fail(
        snapshot
          ? {
              code: ErrorCode.SNAPSHOT_RESTORE_FAILED,
              message: `The workspace's latest snapshot (saved ${new Date(snapshot.savedAt).toISOString()}) could not be restored (${reason}). Your files are not in a new container. Start fresh (a new workspace from its template) or import an archive you exported.`,
            }
          : { code: ErrorCode.CONTAINER_UNAVAILABLE, message: `The container could not start: ${reason}` },
      );
      console.error(`${this.tag}: ${failure.message}`);
      throw new AppError(failure.code, failure.message);
    }
    if (this.retired) {
      // Deleted while it started: it must not outlive the workspace.
      await container.destroy().catch(() => {});
      throw deleted();
    }
    this.failure = undefined;
    this.failures = 0;
    this.startedAt = Date.now();
    await this.ctx.storage.delete(SLEPT_KEY);
    await this.afterStart(Boolean(snapshot)).catch((error) =>
      console.error(`${this.tag} after start: ${describe(error)}`),
    );
    this.phase = "ready";
    const settings = await this.settings();
    await container.setInactivityTimeout(platformTimeoutMs(settings));
    if (snapshot) await this.ctx.storage.put(SNAPSHOT_KEY, { ...snapshot, restoredAt: Date.now() });
    await this.alarms.scheduleNoLaterThan(CHECK_TASK, Date.now() + settings.checkMs);
  }

  /** Brings the next check forward after the timings changed. */
  async rescheduleCheck(): Promise<void> {
    if (this.sandbox.running) {
      await this.alarms.scheduleNoLaterThan(CHECK_TASK, Date.now() + (await this.settings()).checkMs);
    }
  }

  /** Starts the container and waits until it answers; returns `uname -a`. */
  private async startOnce(options: ContainerStartupOptions, fromSnapshot: boolean): Promise<string> {
    this.phase = fromSnapshot ? "restoring-snapshot" : "starting-container";
    this.sandbox.start(options);
    if (fromSnapshot) this.phase = "starting-container";
    // The first exec waits until the container answers; a start that never
    // answers is reported instead of holding every request forever.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    });
    // monitor() settles when the container stops: before it answered, that is
    // a failed start (a snapshot that cannot be restored, an image that
    // cannot run), reported at once rather than after the wait. A pending
    // monitor() holds the object in memory (up to 15 minutes) and holds off
    // the platform's inactivity timeout; the alarm enforces the idle limit.
    const monitor = this.sandbox.monitor();
    const exited = monitor.then(
      () => Promise.reject(new Error("the container stopped as it started")),
      (error: unknown) => Promise.reject(new Error(`the container failed to start: ${describe(error)}`)),
    );
    try {
      const kernel = await Promise.race([this.uname(START_ATTEMPT_MS), timeout, exited]);
      // For the log: when it stops, and how (a crash or removal reads as an error).
      monitor.then(
        () => console.log(`${this.tag} stopped`),
        (error: unknown) => console.warn(`${this.tag} stopped: ${describe(error)}`),
      );
      return kernel;
    } finally {
      clearTimeout(timer);
    }
  }

  /** `uname -a`; `waitMs` waits out a new container that exec() still finds "not running". */
  private async uname(waitMs = 0): Promise<string> {
    return (await this.sandbox.stdout(["uname", "-a"], { wake: false, waitMs })).trim();
  }

  /**
   * `GET status`: wakes the workspace and checks it answers. A container
   * removed from outside is noticed here and replaced by one restored from
   * the latest snapshot.
   */
  async wake(id: string): Promise<WorkspaceStatus> {
    try {
      await this.ensureRunning();
      try {
        // A container being saved is there (and frozen for the moment): a
        // probe then would mistake it for a dead one. Otherwise the probe
        // waits out a short freeze, but not a container that is gone.
        if (this.saves === 0) this.kernel = await this.uname(PROBE_WAIT_MS);
      } catch (error) {
        // The container is gone (or broken): its unsaved changes are lost
        // either way, so start again from the latest snapshot.
        console.warn(`workspace ${id}: the container does not answer (${describe(error)}); starting it again`);
        await this.sandbox.destroy().catch(() => {});
        await this.ensureRunning();
      }
    } catch (error) {
      // A workspace deleted meanwhile did not fail: it is gone.
      if (!this.failure && !this.retired) {
        const failure = this.fail({
          code: ErrorCode.CONTAINER_UNAVAILABLE,
          message: `The container could not start: ${describe(error)}`,
        });
        console.error(`workspace ${id}: ${failure.message}`);
      }
    }
    return this.status(id);
  }

  /** The state as it is now, without starting anything and without counting as activity. */
  async status(id: string): Promise<WorkspaceStatus> {
    const snapshot = await this.ctx.storage.get<SnapshotRecord>(SNAPSHOT_KEY);
    const settings = await this.settings();
    const base = {
      id,
      lastSavedAt: snapshot ? new Date(snapshot.savedAt).toISOString() : null,
      snapshotId: snapshot?.id ?? null,
      idleTimeoutSeconds: Math.round(settings.idleMs / 1000),
    };
    if (this.starting) return { ...base, state: "starting", phase: this.phase };
    if (this.sandbox.running) {
      return { ...base, state: this.saves > 0 ? "saving" : "running", phase: "ready", kernel: this.kernel };
    }
    if (this.failure) return { ...base, state: "failed", error: this.failure };
    return { ...base, state: snapshot ? "sleeping" : "stopped" };
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
      if (!this.sandbox.running) {
        const snapshot = await this.ctx.storage.get<SnapshotRecord>(SNAPSHOT_KEY);
        if (snapshot) return toResult(snapshot);
        await this.ensureRunning();
      }
      const saved = await this.snapshot();
      await this.stopNow();
      return saved;
    });
  }

  /** "Start fresh" after a failed restore: forget the snapshot; the next start uses the image. */
  reset(): Promise<void> {
    return this.exclusive(async () => {
      if (this.sandbox.running || !this.failure) {
        throw new AppError(
          ErrorCode.INVALID_STATE,
          "Only a workspace whose snapshot failed to restore can start fresh; this one has its files.",
        );
      }
      const snapshot = await this.ctx.storage.get<SnapshotRecord>(SNAPSHOT_KEY);
      if (snapshot) await this.ctx.storage.put(ABANDONED_KEY, snapshot);
      await this.ctx.storage.delete(SNAPSHOT_KEY);
      this.failure = undefined;
      this.failures = 0;
    });
  }

  /** Test hook: point the workspace at another snapshot id while it is not running. */
  async adoptSnapshot(id: string): Promise<void> {
    await this.exclusive(async () => {
      if (this.sandbox.running) await this.stopNow();
      await this.ctx.storage.put(SNAPSHOT_KEY, { id, savedAt: Date.now() } satisfies SnapshotRecord);
    });
  }

  /** Takes a snapshot of the running container and stores its id. Call inside {@link exclusive}. */
  async snapshot(): Promise<SaveResult> {
    const container = this.sandbox;
    this.saves++;
    try {
      const startedAt = Date.now();
      // Touch the marker before the snapshot so a file written during the
      // save counts as changed at the next check.
      await container.stdout(["sh", "-c", `mkdir -p "$(dirname ${MARKER})" && touch ${MARKER}`], {
        wake: false,
        waitMs: 0,
      });
      const snapshot = await container.snapshot();
      const record: SnapshotRecord = { id: snapshot.id, savedAt: startedAt };
      await this.ctx.storage.put(SNAPSHOT_KEY, record);
      return toResult(record);
    } catch (error) {
      throw new AppError(
        ErrorCode.SAVE_FAILED,
        `Saving the workspace failed: ${describe(error)}. It keeps running; try again.`,
      );
    } finally {
      this.saves--;
    }
  }

  /** Destroys the container; starts wait until it is gone. Call inside {@link exclusive}. */
  private async stopNow(): Promise<void> {
    // Set in the same turn as the caller's last check, so any request from
    // now on waits for the stop and then wakes a new container.
    this.stopping = this.destroy();
    try {
      await this.stopping;
    } finally {
      this.stopping = undefined;
    }
  }

  private async destroy(): Promise<void> {
    // Before the container goes: a terminal that sees it go must find the flag.
    await this.ctx.storage.put(SLEPT_KEY, true);
    await this.sandbox.destroy();
    this.kernel = undefined;
    this.phase = undefined;
    await this.alarms.cancel(CHECK_TASK);
  }

  /** Whether files changed since the marker was touched (always true before the first save). */
  private async filesChanged(): Promise<boolean> {
    const script = `[ -e ${MARKER} ] || { echo never-saved; exit 0; }; find ${WATCHED.join(" ")} -xdev -newer ${MARKER} -print -quit 2>/dev/null; exit 0`;
    const out = await this.sandbox.stdout(["sh", "-c", script], { wake: false, waitMs: 0 });
    return out.trim().length > 0;
  }

  /**
   * The alarm's check, every `checkMs` while the container runs: save and
   * stop an idle workspace (so the platform's timeout never kills unsaved
   * work), save a checkpoint when files changed, and refresh an old snapshot
   * before it expires.
   */
  private async check(): Promise<void> {
    const container = this.sandbox;
    if (!container.running || this.starting) return;
    const settings = await this.settings();
    const now = Date.now();
    try {
      // A restarted object has no timeout until it sets one again.
      await container.setInactivityTimeout(platformTimeoutMs(settings));
      const snapshot = await this.ctx.storage.get<SnapshotRecord>(SNAPSHOT_KEY);
      const storedLast = (await this.ctx.storage.get<number>(LAST_ACTIVE_KEY)) ?? 0;
      // Hibernatable WebSockets (ctx.acceptWebSocket) count as open connections too.
      const hibernatable = this.ctx.getWebSockets().length;
      if (this.activity.isIdle(settings.idleMs, now, storedLast, hibernatable)) {
        await this.idleStop();
        if (!container.running) return;
      } else {
        // A new workspace's first checkpoint comes a checkpoint interval after
        // its start, not at the first check: a snapshot pauses the container
        // while it is taken (locally `docker commit` freezes it).
        const savedAt = snapshot?.savedAt ?? this.startedAt;
        const lastTouch = Math.max(savedAt, snapshot?.restoredAt ?? 0);
        const checkpointDue = now - savedAt >= settings.checkpointMs && (await this.filesChanged());
        const refreshDue = snapshot !== undefined && now - lastTouch >= settings.refreshMs;
        if (checkpointDue || refreshDue) await this.exclusive(() => this.snapshot());
      }
    } catch (error) {
      // Keep the container; the next check tries again.
      console.error(`lifecycle check: ${describe(error)}`);
    }
    if (container.running) await this.alarms.schedule(CHECK_TASK, Date.now() + settings.checkMs);
  }

  /** Saves, then stops unless someone arrived during the save. */
  private async idleStop(): Promise<void> {
    const before = this.activity.lastActiveAt;
    await this.exclusive(async () => {
      await this.snapshot();
      const open = this.activity.connections + this.ctx.getWebSockets().length;
      if (open > 0 || this.activity.lastActiveAt !== before) return;
      await this.stopNow();
    });
  }
}

function deleted(): AppError {
  return new AppError(ErrorCode.NOT_FOUND, "No such workspace: it was deleted.");
}

function toResult(record: SnapshotRecord): SaveResult {
  return { snapshotId: record.id, savedAt: new Date(record.savedAt).toISOString() };
}
