/**
 * The lifecycle's transitions and the races fixed so far, against a fake
 * container (pure logic: no Docker). The fake keeps a disk of file names so
 * a test can see what a snapshot holds and what a write lost.
 */
import { describe, expect, it, vi } from "vitest";
import type { BackupReason, BackupRecord } from "../../protocol/backups";
import { AlarmScheduler } from "../alarms";
import { AppError } from "../errors";
import type {
  CommandProcess,
  ExecOptions,
  RunResult,
  SandboxControl,
  SandboxProcess,
  SpawnedProcess,
} from "../sandbox/sandbox";
import {
  type FileBackups,
  Lifecycle,
  type LifecycleDeps,
  RETIRE_DESTROY_MS,
  type StartOptions,
  type StartTimings,
} from "./lifecycle";
import { canTransition } from "./state";

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

class FakeSandbox implements SandboxControl {
  running = false;
  generation = 0;
  readonly image = "sandbox-image";
  starts: ContainerStartupOptions[] = [];
  destroys = 0;
  /** The running container's files. */
  disk = new Set<string>();
  /** Snapshots by id: the files they hold. */
  snapshots = new Map<string, Set<string>>();
  /** Starts that fail (monitor rejects at once) while this returns true. */
  failStart: (options: ContainerStartupOptions) => boolean = () => false;
  /** A start waits for this before it answers exec, when set. */
  startGate: Promise<void> | undefined;
  /** A snapshot waits for this before it completes, when set. */
  snapshotGate: Promise<void> | undefined;
  private exited = deferred();
  private answering = Promise.resolve();
  wake: () => Promise<void> = async () => {};

  start(options: ContainerStartupOptions): void {
    this.starts.push(options);
    this.generation++;
    this.running = true;
    this.exited = deferred();
    this.answering = this.startGate ?? Promise.resolve();
    const snapshotId = options.containerSnapshot?.id;
    if (this.failStart(options) || (snapshotId && !this.snapshots.has(snapshotId))) {
      this.running = false;
      this.exited.reject(new Error("no such image"));
      return;
    }
    this.disk = new Set(snapshotId ? this.snapshots.get(snapshotId) : ["template"]);
  }
  monitor(): Promise<void> {
    return this.exited.promise;
  }
  async destroy(): Promise<void> {
    this.destroys++;
    this.running = false;
    this.disk = new Set();
    this.exited.resolve();
  }
  /** Removed from outside (docker rm -f): nobody told the lifecycle. */
  vanish(): void {
    this.running = false;
    this.disk = new Set();
  }
  async snapshot(): Promise<{ id: string }> {
    const files = new Set(this.disk);
    await this.snapshotGate;
    const id = `snap-${this.snapshots.size + 1}`;
    this.snapshots.set(id, files);
    return { id };
  }
  async setInactivityTimeout(): Promise<void> {}
  /** The outbound intercepts of the running container, in the order a command would see them. */
  intercepts: string[] = [];
  async interceptOutbound(outbound: Fetcher): Promise<void> {
    this.intercepts.push(`before first command: ${String(outbound)}`);
  }
  /** A file operation as the files routes make it: wakes the container, then writes. */
  async write(name: string): Promise<void> {
    await this.wake();
    if (!this.running) throw new Error("not running");
    this.disk.add(name);
  }
  async run(argv: string[], options: ExecOptions = {}): Promise<RunResult> {
    if (options.wake !== false) await this.wake();
    if (!this.running) throw new AppError("CONTAINER_UNAVAILABLE", "not running");
    const late = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), options.waitMs ?? 45_000));
    if ((await Promise.race([this.answering, late])) === "late") {
      throw new AppError("CONTAINER_UNAVAILABLE", "no answer");
    }
    if (!this.running) throw new AppError("CONTAINER_UNAVAILABLE", "it stopped");
    if (argv[0] === "uname") this.intercepts.push("uname");
    return { exitCode: 0, stdout: argv[0] === "uname" ? "Linux fake\n" : "", stderr: "" };
  }
  async stdout(argv: string[], options?: ExecOptions): Promise<string> {
    return (await this.run(argv, options)).stdout;
  }
  exec(): Promise<SandboxProcess> {
    throw new Error("not used");
  }
  spawn(): Promise<SpawnedProcess> {
    throw new Error("not used");
  }
  command(): Promise<CommandProcess> {
    throw new Error("not used");
  }
  shell(): Promise<CommandProcess> {
    throw new Error("not used");
  }
  tcpPort(): Fetcher {
    throw new Error("not used");
  }
}

function setup(
  timings: Partial<StartTimings> = {},
  startOptions?: (sandbox: FakeSandbox) => StartOptions,
  extra: Partial<LifecycleDeps> = {},
) {
  const data = new Map<string, unknown>();
  const storage = {
    get: async <T>(key: string) => structuredClone(data.get(key)) as T | undefined,
    put: async <T>(key: string, value: T) => void data.set(key, structuredClone(value)),
    delete: async (key: string) => data.delete(key),
    getAlarm: async () => null,
    setAlarm: async () => {},
    deleteAlarm: async () => {},
  };
  const sandbox = new FakeSandbox();
  const make = () => {
    const lifecycle = new Lifecycle({
      storage,
      sandbox,
      alarms: new AlarmScheduler(storage),
      settings: async () => ({
        idleMs: 600_000,
        checkMs: 60_000,
        checkpointMs: 300_000,
        outsideWritesMs: 30_000,
        refreshMs: 1e9,
      }),
      startOptions: () => startOptions?.(sandbox) ?? { image: sandbox.image, enableInternet: true },
      tag: "test",
      timings: {
        retryDelayMs: 0,
        attempts: 1,
        budgetMs: 0,
        snapshotBudgetMs: 0,
        attemptWaitMs: 50,
        probeWaitMs: 50,
        ...timings,
      },
      ...extra,
    });
    sandbox.wake = () => lifecycle.ensureRunning();
    return lifecycle;
  };
  const lifecycle = make();
  const quiet = console;
  quiet.log = () => {};
  quiet.warn = () => {};
  quiet.error = () => {};
  return { lifecycle, sandbox, storage, data, restart: make };
}

describe("the lifecycle", () => {
  it("leaves a disposable container (an unclaimed spare) to its own alarm: idle, it is neither saved nor stopped", async () => {
    let disposable = true;
    const { lifecycle, sandbox } = setup({}, undefined, {
      disposable: () => disposable,
      // Idle at once, and a checkpoint due at once: only disposability keeps it running and unsaved.
      settings: async () => ({ idleMs: 1, checkMs: 60_000, checkpointMs: 1, outsideWritesMs: 30_000, refreshMs: 1e9 }),
    });
    const check = () => (lifecycle as unknown as { check(): Promise<void> }).check();
    await lifecycle.ensureRunning();
    await sandbox.write("nothing of anyone's");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await check();
    expect(sandbox.snapshots.size).toBe(0);
    expect(sandbox.running).toBe(true);
    // Claimed: the same idle check saves and stops it.
    disposable = false;
    await check();
    expect(sandbox.snapshots.size).toBe(1);
    expect(sandbox.running).toBe(false);
  });

  it("tells subscribers when a container runs and when it is gone: after a start, a stop, a vanishing and a restart", async () => {
    const { lifecycle, sandbox, restart } = setup();
    const heard: string[] = [];
    lifecycle.onRunning(() => heard.push(`running ${lifecycle.isRunning}`));
    const stopListening = lifecycle.onStopped(() => heard.push(`stopped ${lifecycle.hasContainer}`));
    expect([lifecycle.isRunning, lifecycle.hasContainer]).toEqual([false, false]);
    const gate = deferred();
    sandbox.startGate = gate.promise;
    const start = lifecycle.ensureRunning();
    await tick();
    // Starting: a container is there, but it does not run (answer) yet.
    expect([lifecycle.isRunning, lifecycle.hasContainer, heard]).toEqual([false, true, []]);
    gate.resolve();
    await start;
    await lifecycle.save();
    expect(heard).toEqual(["running true"]);
    await lifecycle.stop();
    expect(heard).toEqual(["running true", "stopped false"]);
    await lifecycle.ensureRunning();
    sandbox.vanish();
    expect(lifecycle.isRunning).toBe(false);
    expect(heard).toEqual(["running true", "stopped false", "running true", "stopped false"]);
    stopListening();
    await lifecycle.ensureRunning();
    // A restarted object that finds its container running tells its own subscribers.
    const again = restart();
    const found: string[] = [];
    again.onRunning(() => found.push("running"));
    await again.load();
    expect(found).toEqual(["running"]);
    expect(heard).toEqual(["running true", "stopped false", "running true", "stopped false", "running true"]);
  });

  it("starts a new workspace from the image, and concurrent callers share that one start", async () => {
    const { lifecycle, sandbox } = setup();
    expect((await lifecycle.status("w")).state).toBe("stopped");
    const gate = deferred();
    sandbox.startGate = gate.promise;
    const first = lifecycle.ensureRunning();
    const second = lifecycle.ensureRunning();
    await tick();
    expect(await lifecycle.status("w")).toMatchObject({ state: "starting", phase: "starting-container" });
    gate.resolve();
    await Promise.all([first, second]);
    expect(sandbox.starts).toEqual([{ image: "sandbox-image", enableInternet: true }]);
    expect(await lifecycle.status("w")).toMatchObject({ state: "running", phase: "ready", kernel: "Linux fake" });
  });

  it("a wake that starts the container asks it once (its start's uname); a wake of a running one checks it", async () => {
    const { lifecycle, sandbox } = setup();
    const unames = () => sandbox.intercepts.filter((step) => step === "uname").length;
    expect(await lifecycle.wake("w")).toMatchObject({ state: "running", kernel: "Linux fake" });
    expect(unames()).toBe(1);
    expect(await lifecycle.wake("w")).toMatchObject({ state: "running" });
    expect(unames()).toBe(2);
  });

  it("a status probe during a start waits for it and never destroys the container mid-start", async () => {
    const { lifecycle, sandbox } = setup();
    const gate = deferred();
    sandbox.startGate = gate.promise;
    const start = lifecycle.ensureRunning();
    await tick();
    const status = lifecycle.wake("w");
    await tick();
    gate.resolve();
    await start;
    expect(await status).toMatchObject({ state: "running" });
    expect(sandbox.destroys).toBe(0);
    expect(sandbox.starts).toHaveLength(1);
  });

  it("deleting during a start destroys the container once it started, and nothing starts it again", async () => {
    const { lifecycle, sandbox } = setup();
    const gate = deferred();
    sandbox.startGate = gate.promise;
    const waiting = lifecycle.ensureRunning();
    await tick();
    const retired = lifecycle.retire();
    // A request that arrives meanwhile, and the one that waited, are both told it is gone.
    const late = lifecycle.ensureRunning();
    gate.resolve();
    await retired;
    await expect(waiting).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(late).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(lifecycle.ensureRunning()).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(sandbox.running).toBe(false);
    expect(sandbox.starts).toHaveLength(1);
  });

  it("a write between a snapshot and its stop is never lost: it waits, and lands in the woken container", async () => {
    const { lifecycle, sandbox } = setup();
    await lifecycle.ensureRunning();
    const gate = deferred();
    sandbox.snapshotGate = gate.promise;
    const stopped = lifecycle.stop();
    await tick();
    expect((await lifecycle.status("w")).state).toBe("saving");
    const write = lifecycle.shared(() => sandbox.write("late.txt"));
    await tick();
    gate.resolve();
    const saved = await stopped;
    await write;
    // The write waited for the stop, then woke a container from that snapshot.
    expect(sandbox.snapshots.get(saved.snapshotId)?.has("late.txt")).toBe(false);
    expect(sandbox.starts.at(-1)).toMatchObject({ containerSnapshot: { id: saved.snapshotId } });
    expect(sandbox.disk.has("late.txt")).toBe(true);
  });

  it("a read that arrives during a Save and sleep waits for it and then finds it asleep: it never wakes it", async () => {
    const { lifecycle, sandbox } = setup();
    await lifecycle.ensureRunning();
    const gate = deferred();
    sandbox.snapshotGate = gate.promise;
    const stopped = lifecycle.stop();
    await tick();
    const read = lifecycle.shared(() => lifecycle.whenAwake());
    await tick();
    gate.resolve();
    await stopped;
    await expect(read).rejects.toMatchObject({ code: "WORKSPACE_ASLEEP" });
    expect(sandbox.running).toBe(false);
    expect(sandbox.starts).toHaveLength(1);
    expect((await lifecycle.status("w")).state).toBe("sleeping");
    // A read during a start waits for it and then reads.
    const start = lifecycle.ensureRunning();
    await expect(lifecycle.whenAwake()).resolves.toBeUndefined();
    await start;
  });

  it("a save while files change: a write waits for the snapshot, the container keeps it, the next save has it", async () => {
    const { lifecycle, sandbox } = setup();
    await lifecycle.ensureRunning();
    const gate = deferred();
    sandbox.snapshotGate = gate.promise;
    const first = lifecycle.save();
    await tick();
    const write = lifecycle.shared(() => sandbox.write("during.txt"));
    await tick();
    expect(sandbox.disk.has("during.txt")).toBe(false);
    gate.resolve();
    const saved = await first;
    await write;
    expect(sandbox.snapshots.get(saved.snapshotId)?.has("during.txt")).toBe(false);
    expect(sandbox.disk.has("during.txt")).toBe(true);
    sandbox.snapshotGate = undefined;
    const second = await lifecycle.save();
    expect(sandbox.snapshots.get(second.snapshotId)?.has("during.txt")).toBe(true);
    expect((await lifecycle.status("w")).state).toBe("running");
  });

  it("save and sleep: reconnects are told it sleeps, also in a restarted object; a use wakes it from the snapshot", async () => {
    const { lifecycle, sandbox, restart } = setup();
    await lifecycle.ensureRunning();
    await sandbox.write("work.txt");
    const saved = await lifecycle.stop();
    expect(lifecycle.isAsleep()).toBe(true);
    expect(await lifecycle.status("w")).toMatchObject({ state: "sleeping", snapshotId: saved.snapshotId });

    const restarted = restart();
    await restarted.load();
    expect(restarted.isAsleep()).toBe(true);
    await restarted.ensureRunning();
    expect(sandbox.disk.has("work.txt")).toBe(true);
    expect(restarted.isAsleep()).toBe(false);
  });

  it("a vanished container is restored from the latest snapshot, without later changes, even by a reconnect", async () => {
    const { lifecycle, sandbox } = setup();
    await lifecycle.ensureRunning();
    await sandbox.write("before-snapshot");
    const saved = await lifecycle.save();
    await sandbox.write("after-snapshot");
    sandbox.vanish();
    // Not asleep: an automatic reconnect brings it back.
    expect(lifecycle.isAsleep()).toBe(false);
    expect(await lifecycle.wake("w")).toMatchObject({ state: "running", snapshotId: saved.snapshotId });
    expect(sandbox.starts.at(-1)).toMatchObject({ containerSnapshot: { id: saved.snapshotId } });
    expect([...sandbox.disk].sort()).toEqual(["before-snapshot", "template"]);
    // The page is told what came back, and from when.
    expect((await lifecycle.status("w")).restored).toMatchObject({ from: "snapshot", savedAt: saved.savedAt });
    // A sleep on purpose ends that news.
    await lifecycle.stop();
    expect((await lifecycle.status("w")).restored).toBeUndefined();
  });

  it("says a vanished container that had nothing saved came back from the template, and a first start says nothing", async () => {
    const { lifecycle, sandbox } = setup();
    await lifecycle.ensureRunning();
    expect((await lifecycle.status("w")).restored).toBeUndefined();
    await sandbox.write("never-saved");
    sandbox.vanish();
    expect(await lifecycle.wake("w")).toMatchObject({
      state: "running",
      restored: { from: "template", savedAt: null },
    });
    expect(sandbox.disk.has("never-saved")).toBe(false);
  });

  it("a status probe that finds the container dead starts it again from the latest snapshot", async () => {
    const { lifecycle, sandbox } = setup();
    await lifecycle.ensureRunning();
    const saved = await lifecycle.save();
    // It counts as running but does not answer (a container whose engine lost it).
    sandbox.startGate = new Promise(() => {});
    sandbox.start({ image: "x" });
    sandbox.startGate = undefined;
    const status = await lifecycle.wake("w");
    expect(status.state).toBe("running");
    expect(sandbox.starts.at(-1)).toMatchObject({ containerSnapshot: { id: saved.snapshotId } });
  });

  it("confirmAlive stops a workspace whose container no longer answers though the platform still counts it running", async () => {
    const { lifecycle, sandbox } = setup();
    await lifecycle.ensureRunning();
    await sandbox.write("never-saved");
    // A healthy container: nothing changes.
    expect(await lifecycle.confirmAlive()).toBe(true);
    expect(sandbox.destroys).toBe(0);
    // Removed from outside, and not yet noticed (locally workerd can take minutes): it stops answering.
    sandbox.startGate = new Promise(() => {});
    sandbox.start({ image: "x" });
    sandbox.startGate = undefined;
    expect(lifecycle.kind).toBe("running");
    // Two status polls at once: one check.
    const checks = [lifecycle.confirmAlive(), lifecycle.confirmAlive()];
    expect(checks[0]).toBe(checks[1]);
    expect(await Promise.all(checks)).toEqual([false, false]);
    expect(sandbox.destroys).toBe(1);
    expect(lifecycle.kind).toBe("stopped");
    // Not asleep: the page's reconnect brings it back, and says what was lost.
    expect(lifecycle.isAsleep()).toBe(false);
    await lifecycle.ensureRunning();
    expect((await lifecycle.status("w")).restored).toMatchObject({ from: "template", savedAt: null });
  });

  it("confirmAlive never destroys a container started after the one it found dead", async () => {
    const { lifecycle, sandbox } = setup();
    await lifecycle.ensureRunning();
    sandbox.startGate = new Promise(() => {});
    sandbox.start({ image: "x" });
    sandbox.startGate = undefined;
    const check = lifecycle.confirmAlive();
    // Meanwhile the platform reports the exit, and a reconnect starts a new container.
    sandbox.vanish();
    await lifecycle.ensureRunning();
    const starts = sandbox.starts.length;
    expect(await check).toBe(true);
    expect(sandbox.destroys).toBe(0);
    expect(sandbox.running).toBe(true);
    expect(lifecycle.kind).toBe("running");
    expect(sandbox.starts).toHaveLength(starts);
  });

  it("confirmAlive leaves a sleeping or saving workspace alone", async () => {
    const { lifecycle, sandbox } = setup();
    await lifecycle.ensureRunning();
    sandbox.snapshotGate = new Promise(() => {});
    void lifecycle.save().catch(() => {});
    await tick();
    expect(lifecycle.kind).toBe("saving");
    // A container being saved is frozen: it is not taken for a dead one.
    expect(await lifecycle.confirmAlive()).toBe(true);
    expect(sandbox.destroys).toBe(0);
  });

  it("a failed start is reported, and automatic reconnects pause 5 s, then 10 s after another failure", async () => {
    const { lifecycle, sandbox } = setup();
    sandbox.failStart = () => true;
    const before = Date.now();
    await expect(lifecycle.ensureRunning()).rejects.toMatchObject({ code: "CONTAINER_UNAVAILABLE" });
    const status = await lifecycle.status("w");
    expect(status).toMatchObject({ state: "failed", error: { code: "CONTAINER_UNAVAILABLE" } });
    expect(lifecycle.isAsleep(before + 4_000)).toBe(true);
    expect(lifecycle.isAsleep(Date.now() + 5_001)).toBe(false);
    expect(lifecycle.failureMessage).toMatch(/could not start/);

    // Tried again (a key press, or after the pause): it fails again, and the pause doubles.
    await expect(lifecycle.ensureRunning()).rejects.toMatchObject({ code: "CONTAINER_UNAVAILABLE" });
    expect(lifecycle.isAsleep(Date.now() + 9_000)).toBe(true);
    expect(lifecycle.isAsleep(Date.now() + 10_001)).toBe(false);

    // The cause goes away: the next start works and the count starts over.
    sandbox.failStart = () => false;
    await lifecycle.ensureRunning();
    expect(lifecycle.failureMessage).toBeUndefined();
    expect(sandbox.running).toBe(true);
  });

  it("start attempts are retried within the budget before the start counts as failed", async () => {
    const { lifecycle, sandbox } = setup({ attempts: 3 });
    let calls = 0;
    sandbox.failStart = () => ++calls < 3;
    await lifecycle.ensureRunning();
    expect(sandbox.starts).toHaveLength(3);
    expect((await lifecycle.status("w")).state).toBe("running");
  });

  it("a snapshot that cannot be restored fails the start (never an empty workspace); start fresh uses the image", async () => {
    const { lifecycle, sandbox, storage } = setup();
    await lifecycle.reset().catch((error: AppError) => expect(error.code).toBe("INVALID_STATE"));
    await storage.put("lifecycle:snapshot", { id: "gone", savedAt: 1 });
    await expect(lifecycle.ensureRunning()).rejects.toMatchObject({ code: "SNAPSHOT_RESTORE_FAILED" });
    expect(sandbox.starts.every((options) => options.image === undefined)).toBe(true);
    expect((await lifecycle.status("w")).error?.message).toMatch(/Start fresh/);

    await lifecycle.reset();
    expect((await lifecycle.status("w")).state).toBe("stopped");
    await lifecycle.ensureRunning();
    expect(sandbox.starts.at(-1)).toEqual({ image: "sandbox-image", enableInternet: true });
    expect(sandbox.disk.has("template")).toBe(true);
    // Chosen by the person: no loss to report.
    expect((await lifecycle.status("w")).restored).toBeUndefined();
  });

  it("registers the outbound intercepts on every start and wake, before the first command", async () => {
    const outbound = { toString: () => "outbound" } as unknown as Fetcher;
    let internet = false;
    const { lifecycle, sandbox } = setup({}, (sandbox) => ({
      image: sandbox.image,
      enableInternet: internet,
      ...(internet ? {} : { outbound }),
    }));
    await lifecycle.ensureRunning();
    expect(sandbox.intercepts).toEqual(["before first command: outbound", "uname"]);
    await lifecycle.stop();
    sandbox.intercepts = [];
    await lifecycle.ensureRunning();
    expect(sandbox.intercepts).toEqual(["before first command: outbound", "uname"]);
    // A restart for a new Internet setting saves first, and the new container gets the new options.
    internet = true;
    sandbox.intercepts = [];
    sandbox.disk.add("work");
    await lifecycle.restart();
    expect(sandbox.starts.at(-1)).toMatchObject({ enableInternet: true });
    expect(sandbox.intercepts).toEqual(["uname"]);
    expect(sandbox.disk.has("work")).toBe(true);
    expect(lifecycle.kind).toBe("running");
  });

  it("starts the resident agent beside each attempt's first command, after the intercepts; a failed attempt's again", async () => {
    const outbound = { toString: () => "outbound" } as unknown as Fetcher;
    let attempt = 0;
    const { lifecycle, sandbox } = setup(
      { attempts: 2 },
      (sandbox) => ({ image: sandbox.image, enableInternet: false, outbound }),
      { onLaunch: () => sandbox.intercepts.push("agent") },
    );
    // The first attempt's container never answers; the second does.
    const start = sandbox.start.bind(sandbox);
    sandbox.start = (options) => {
      attempt += 1;
      sandbox.startGate = attempt === 1 ? new Promise(() => {}) : undefined;
      start(options);
    };
    await lifecycle.ensureRunning();
    expect(sandbox.intercepts).toEqual([
      "before first command: outbound",
      "agent",
      "before first command: outbound",
      "agent",
      "uname",
    ]);
    expect(lifecycle.kind).toBe("running");
  });

  it("deleting does not hang on a container removal that never answers, and fails if the removal fails", async () => {
    vi.useFakeTimers();
    try {
      const { lifecycle, sandbox } = setup();
      await lifecycle.ensureRunning();
      sandbox.destroy = () => new Promise<void>(() => {});
      let done = false;
      const retired = lifecycle.retire().then(() => {
        done = true;
      });
      await vi.advanceTimersByTimeAsync(RETIRE_DESTROY_MS - 1000);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(2000);
      await retired;
      expect(done).toBe(true);
      await expect(lifecycle.ensureRunning()).rejects.toMatchObject({ code: "NOT_FOUND" });

      const other = setup();
      await other.lifecycle.ensureRunning();
      other.sandbox.destroy = async () => {
        throw new Error("Removing a container failed with: engine down");
      };
      await expect(other.lifecycle.retire()).rejects.toThrow(/engine down/);
    } finally {
      vi.useRealTimers();
    }
  });

  it("deleting a sleeping workspace, or one that is stopping, leaves nothing to start", async () => {
    const { lifecycle, sandbox } = setup();
    await lifecycle.ensureRunning();
    const stopping = lifecycle.stop();
    await tick();
    await lifecycle.retire();
    await stopping.catch(() => {});
    await expect(lifecycle.ensureRunning()).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(sandbox.running).toBe(false);
  });
});

describe("the state table", () => {
  it("makes deleted final and lets only the lifecycle's own moves happen", () => {
    for (const to of ["stopped", "starting", "running", "failed"] as const) {
      expect(canTransition("deleted", to)).toBe(false);
    }
    expect(canTransition("sleeping", "running")).toBe(false);
    expect(canTransition("stopped", "starting")).toBe(true);
    expect(canTransition("running", "stopped")).toBe(true);
    expect(canTransition("failed", "stopped")).toBe(true);
  });
});

/** Backups of the fake disk: each holds the files at the time; a restore puts them in the container. */
class FakeBackups implements FileBackups {
  records: (BackupRecord & { files: string[] })[] = [];
  damaged = new Set<string>();
  restored: string[] = [];
  /** Each restore's `fresh`, in order. */
  fresh: boolean[] = [];
  constructor(private readonly sandbox: FakeSandbox) {}
  async list(): Promise<BackupRecord[]> {
    return [...this.records].reverse();
  }
  async restoreInto(record: BackupRecord, fresh = false): Promise<void> {
    this.fresh.push(fresh);
    if (this.damaged.has(record.id)) throw new AppError("BACKUP_INTEGRITY", "damaged");
    this.sandbox.disk = new Set(this.records.find((r) => r.id === record.id)?.files);
    this.restored.push(record.id);
  }
  async attempt(reason: BackupReason): Promise<unknown> {
    const at = Date.now() + this.records.length;
    this.records.push({
      id: `b${this.records.length + 1}`,
      createdAt: new Date(at).toISOString(),
      size: 1,
      sha256: "0",
      dirs: ["/workspace"],
      image: "",
      reason,
      pinned: false,
      files: [...this.sandbox.disk],
    });
    return undefined;
  }
  async due(): Promise<boolean> {
    return false;
  }
  async create(reason: BackupReason): Promise<BackupRecord> {
    await this.attempt(reason);
    return this.records.at(-1) as BackupRecord;
  }
}

describe("the lifecycle with backups", () => {
  /** A lifecycle whose backups are a FakeBackups and whose image changes by setImage; `extra` adds deps. */
  function withBackups(extra: Partial<LifecycleDeps> = {}) {
    let image = "image-1";
    let backups: FakeBackups | undefined;
    const made = setup({}, () => ({ image, enableInternet: true }), {
      get backups() {
        return backups;
      },
      ...extra,
    });
    backups = new FakeBackups(made.sandbox);
    const lifecycle = made.restart();
    made.sandbox.wake = () => lifecycle.ensureRunning();
    return {
      ...made,
      lifecycle,
      backups,
      setImage: (next: string) => {
        image = next;
      },
    };
  }

  it("a stop backs up after the snapshot; after an image change the wake uses the new image plus that backup", async () => {
    const { lifecycle, sandbox, backups, setImage } = withBackups();
    await lifecycle.ensureRunning();
    expect((await lifecycle.status("w")).system).toMatchObject({ image: "image-1", current: true });
    await sandbox.write("mine.txt");
    await lifecycle.stop();
    expect(backups.records.map((r) => r.reason)).toEqual(["stop"]);

    setImage("image-2");
    await lifecycle.ensureRunning();
    expect(sandbox.starts.at(-1)).toEqual({ image: "image-2", enableInternet: true });
    expect(sandbox.disk.has("mine.txt")).toBe(true);
    const status = await lifecycle.status("w");
    expect(status.restored).toMatchObject({ from: "backup", reason: "image-changed" });
    expect(status.system).toMatchObject({ image: "image-2", current: true });
  });

  it("on the same image it wakes from the snapshot; a snapshot newer than the backup is kept even after an image change", async () => {
    const { lifecycle, sandbox, backups, setImage } = withBackups();
    await lifecycle.ensureRunning();
    await lifecycle.stop();
    await lifecycle.ensureRunning();
    expect(sandbox.starts.at(-1)?.containerSnapshot).toBeDefined();
    // A checkpoint after the latest backup, then the container vanishes.
    await sandbox.write("after-backup.txt");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await lifecycle.save();
    sandbox.vanish();
    setImage("image-2");
    await lifecycle.ensureRunning();
    expect(sandbox.starts.at(-1)?.containerSnapshot).toBeDefined();
    expect(sandbox.disk.has("after-backup.txt")).toBe(true);
    expect(backups.restored).toEqual([]);
    expect((await lifecycle.status("w")).system?.current).toBe(false);
  });

  it("Move to the current image backs up, stops and starts on the current image with that backup", async () => {
    const { lifecycle, sandbox, backups, setImage } = withBackups();
    await lifecycle.ensureRunning();
    await expect(lifecycle.upgrade()).rejects.toMatchObject({ code: "INVALID_STATE" });
    await lifecycle.stop();
    await lifecycle.ensureRunning();
    await sandbox.write("after.txt");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await lifecycle.save();
    sandbox.vanish();
    setImage("image-2");
    // The checkpoint is newer than the backup: it wakes on the old image.
    await lifecycle.ensureRunning();
    expect((await lifecycle.status("w")).system?.current).toBe(false);
    await lifecycle.upgrade();
    expect(backups.records.at(-1)?.reason).toBe("upgrade");
    expect(sandbox.starts.at(-1)).toEqual({ image: "image-2", enableInternet: true });
    expect(sandbox.disk.has("after.txt")).toBe(true);
    expect((await lifecycle.status("w")).system).toMatchObject({ image: "image-2", current: true });
  });

  /** withBackups, with the container's set-up (afterLaunch) held by `setUp` and the steps in `events`. */
  function withSetUp() {
    const events: string[] = [];
    let setUp = Promise.resolve();
    const made = withBackups({
      afterLaunch: async () => {
        events.push("set-up begins");
        await setUp;
        events.push("set-up done");
      },
      afterStart: async (from) => {
        events.push(`files' steps (${from}): ${[...made.sandbox.disk].sort().join(" ")}`);
      },
    });
    return {
      ...made,
      events,
      holdSetUp: () => {
        const held = deferred();
        setUp = held.promise;
        return held;
      },
    };
  }

  it("a wake from a backup sets the container up beside the restore, and runs the files' steps once the files are back", async () => {
    const { lifecycle, sandbox, backups, events, setImage, holdSetUp } = withSetUp();
    await lifecycle.ensureRunning();
    await sandbox.write("mine.txt");
    await lifecycle.stop();

    const restoring = deferred();
    const restoreInto = backups.restoreInto.bind(backups);
    backups.restoreInto = async (record) => {
      events.push("restore begins");
      await restoring.promise;
      await restoreInto(record);
      events.push("restored");
    };
    setImage("image-2");
    const setUp = holdSetUp();
    events.length = 0;
    const waking = lifecycle.ensureRunning();
    for (let i = 0; i < 10; i++) await tick();
    // Both under way at once; nothing touches the files before they are back.
    expect(events).toEqual(["set-up begins", "restore begins"]);
    restoring.resolve();
    for (let i = 0; i < 10; i++) await tick();
    expect(events).toEqual(["set-up begins", "restore begins", "restored", "files' steps (backup): mine.txt template"]);
    // Running only once the set-up is done too.
    expect(lifecycle.kind).toBe("starting");
    setUp.resolve();
    await waking;
    expect(events.at(-1)).toBe("set-up done");
    expect(lifecycle.kind).toBe("running");
  });

  it("a start whose restore fails waits for the container's set-up before the container goes", async () => {
    const { lifecycle, sandbox, backups, events, setImage, holdSetUp } = withSetUp();
    await lifecycle.ensureRunning();
    await lifecycle.stop();
    backups.damaged.add("b1");

    setImage("image-2");
    const setUp = holdSetUp();
    const destroys = sandbox.destroys;
    const waking = lifecycle.ensureRunning().catch((error: unknown) => error);
    for (let i = 0; i < 10; i++) await tick();
    expect(sandbox.destroys).toBe(destroys);
    setUp.resolve();
    expect(await waking).toMatchObject({ code: "BACKUP_INTEGRITY" });
    expect(events.at(-1)).toBe("set-up done");
    expect(sandbox.destroys).toBe(destroys + 1);
    expect(events.some((event) => event.startsWith("files' steps (backup)"))).toBe(false);
  });

  it("a snapshot that cannot be restored falls back to the latest backup, skipping a damaged one", async () => {
    const { lifecycle, sandbox, backups } = withBackups();
    await lifecycle.ensureRunning();
    await sandbox.write("old.txt");
    await lifecycle.stop();
    await lifecycle.ensureRunning();
    await sandbox.write("new.txt");
    await lifecycle.stop();
    backups.damaged.add("b2");
    sandbox.snapshots.clear();
    await lifecycle.ensureRunning();
    expect(await lifecycle.status("w")).toMatchObject({
      state: "running",
      restored: { from: "backup", reason: "snapshot-unavailable" },
    });
    expect(backups.restored).toEqual(["b1"]);
    // The new container's files are the image's for the first attempt only: b2's may have changed them.
    expect(backups.fresh).toEqual([true, false]);
    expect(sandbox.disk.has("old.txt")).toBe(true);
  });
});
