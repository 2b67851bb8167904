/**
 * One Durable Object has one alarm. This scheduler shares it between named
 * tasks: each task has a next-run time in storage, the object's `alarm()`
 * calls `run()`, which runs the tasks that are due and re-arms the alarm for
 * the earliest one left.
 *
 *   this.alarms = new AlarmScheduler(ctx.storage, { "preview-grants": () => ... });
 *   this.alarms.register("lifecycle", () => ...);
 *   override alarm() { return this.alarms.run(); }
 */

/** The part of `DurableObjectStorage` the scheduler uses (a fake fits it in unit tests). */
export interface AlarmStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  getAlarm(): Promise<number | null>;
  setAlarm(scheduledTime: number): Promise<void>;
  deleteAlarm(): Promise<void>;
}

export type AlarmTask = () => Promise<void> | void;

const TASKS_KEY = "alarms:tasks";
/** A task that throws runs again this much later (unless it rescheduled itself). */
const RETRY_MS = 60_000;

export class AlarmScheduler {
  private readonly handlers = new Map<string, AlarmTask>();

  constructor(
    private readonly storage: AlarmStorage,
    tasks: Record<string, AlarmTask> = {},
    private readonly now: () => number = Date.now,
  ) {
    for (const [name, task] of Object.entries(tasks)) this.register(name, task);
  }

  /** Names the code that runs when a task is due. Register every task in the constructor. */
  register(name: string, task: AlarmTask): void {
    this.handlers.set(name, task);
  }

  /** Runs `name` at `at` (ms since epoch), replacing its previous time. */
  async schedule(name: string, at: number): Promise<void> {
    const tasks = await this.tasks();
    tasks[name] = at;
    await this.save(tasks);
  }

  /** Runs `name` at `at` unless it is already due earlier. */
  async scheduleNoLaterThan(name: string, at: number): Promise<void> {
    const tasks = await this.tasks();
    const current = tasks[name];
    if (current !== undefined && current <= at) return;
    tasks[name] = at;
    await this.save(tasks);
  }

  async cancel(name: string): Promise<void> {
    const tasks = await this.tasks();
    if (!(name in tasks)) return;
    delete tasks[name];
    await this.save(tasks);
  }

  async nextRun(name: string): Promise<number | undefined> {
    return (await this.tasks())[name];
  }

  /**
   * The body of `alarm()`: runs every due task once. A task is removed before
   * it runs, so a task that wants to run again schedules itself. A task that
   * throws is logged, tried again in a minute, and does not keep the others
   * from running.
   */
  async run(now = this.now()): Promise<void> {
    const tasks = await this.tasks();
    const due = Object.entries(tasks)
      .filter(([, at]) => at <= now)
      .sort((a, b) => a[1] - b[1])
      .map(([name]) => name);
    for (const name of due) delete tasks[name];
    await this.save(tasks);
    for (const name of due) {
      const task = this.handlers.get(name);
      if (!task) {
        console.warn(`alarm task ${name} has no handler; dropped`);
        continue;
      }
      try {
        await task();
      } catch (error) {
        console.error(`alarm task ${name} failed:`, error);
        const current = await this.tasks();
        current[name] ??= now + RETRY_MS;
        await this.save(current);
      }
    }
  }

  private async tasks(): Promise<Record<string, number>> {
    return { ...((await this.storage.get<Record<string, number>>(TASKS_KEY)) ?? {}) };
  }

  private async save(tasks: Record<string, number>): Promise<void> {
    await this.storage.put(TASKS_KEY, tasks);
    const earliest = Math.min(...Object.values(tasks));
    if (Number.isFinite(earliest)) {
      if ((await this.storage.getAlarm()) !== earliest) await this.storage.setAlarm(earliest);
    } else {
      await this.storage.deleteAlarm();
    }
  }
}
