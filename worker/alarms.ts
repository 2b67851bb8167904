/**
 * A Durable Object has one alarm. Features share it through this scheduler:
 * each schedules a named task for a time, and the object's `alarm()` calls
 * `run()`, which runs the tasks that are due and sets the alarm for the next.
 *
 *   this.alarms = new AlarmScheduler(ctx.storage, { "preview-grants": () => ... });
 *   override alarm() { return this.alarms.run(); }
 */
export type AlarmTask = () => Promise<void>;

/** The part of DurableObjectStorage the scheduler uses (a fake in unit tests). */
export interface AlarmStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
  getAlarm(): Promise<number | null>;
  setAlarm(scheduledTime: number): Promise<void>;
  deleteAlarm(): Promise<void>;
}

const KEY = "alarm-tasks";
const RETRY_MS = 60_000;

export class AlarmScheduler {
  constructor(
    private readonly storage: AlarmStorage,
    private readonly tasks: Record<string, AlarmTask>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `task` at `at` (ms since the epoch), replacing its earlier time. */
  async schedule(task: string, at: number): Promise<void> {
    if (!(task in this.tasks)) throw new Error(`No alarm task named ${task}.`);
    const due = await this.due();
    due[task] = at;
    await this.save(due);
  }

  async cancel(task: string): Promise<void> {
    const due = await this.due();
    delete due[task];
    await this.save(due);
  }

  /** Called from the Durable Object's `alarm()`. A task that throws is tried again in a minute. */
  async run(): Promise<void> {
    const now = this.now();
    const due = await this.due();
    const ready = Object.keys(due).filter((task) => (due[task] ?? 0) <= now);
    // Unscheduled before running, so that a task can schedule its next run.
    for (const task of ready) delete due[task];
    await this.save(due);
    for (const task of ready) {
      try {
        await this.tasks[task]?.();
      } catch (error) {
        console.error(`alarm task ${task} failed:`, error);
        const current = await this.due();
        current[task] ??= now + RETRY_MS;
        await this.save(current);
      }
    }
  }

  private async due(): Promise<Record<string, number>> {
    return { ...((await this.storage.get<Record<string, number>>(KEY)) ?? {}) };
  }

  private async save(due: Record<string, number>): Promise<void> {
    const times = Object.values(due);
    if (times.length === 0) {
      await this.storage.delete(KEY);
      await this.storage.deleteAlarm();
      return;
    }
    await this.storage.put(KEY, due);
    const next = Math.min(...times);
    if ((await this.storage.getAlarm()) !== next) await this.storage.setAlarm(next);
  }
}
