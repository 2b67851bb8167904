/**
 * A spare: a workspace whose container starts while its owner types the name
 * of a new one (`POST /api/workspaces/spare`), so the workspace they then
 * create is already running (the pattern of Coder's prebuilt workspaces and
 * the sandbox SDK's warm pool). It belongs to that user from the start; until
 * it is claimed it has no name, no template applied and no place in their
 * list, and when nobody claims it in time it is destroyed, never saved.
 */
import type { AlarmScheduler } from "../alarms";

/** The alarm task that discards an unclaimed spare. */
export const SPARE_TASK = "spare-expiry";
const SPARE_KEY = "spare";
/** How long a spare waits for its claim when `SPARE_WORKSPACE_SECONDS` is unset. */
export const DEFAULT_SPARE_SECONDS = 300;

/**
 * `SPARE_WORKSPACE_SECONDS`: how long an unclaimed spare lives; 0 (or "off")
 * turns spares off, and a new workspace then starts its container when opened.
 */
export function spareLifetimeMs(seconds: string | undefined): number {
  if (seconds === undefined || seconds.trim() === "") return DEFAULT_SPARE_SECONDS * 1000;
  if (seconds.trim() === "off") return 0;
  const parsed = Number(seconds);
  if (!Number.isFinite(parsed) || parsed < 0) {
    throw new Error(`SPARE_WORKSPACE_SECONDS is ${JSON.stringify(seconds)}: use a number of seconds, or 0 for none`);
  }
  return Math.round(parsed * 1000);
}

interface SpareStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
}

/** One Workspace's spare state: held until claimed or expired, each exactly once. */
export class Spare {
  private expiresAt: number | undefined;
  /** Set once the object is going (expired, or deleted): it takes no claim. */
  private discarded = false;

  constructor(
    private readonly storage: SpareStorage,
    private readonly alarms: Pick<AlarmScheduler, "schedule" | "cancel">,
  ) {}

  async load(): Promise<void> {
    this.expiresAt = await this.storage.get<number>(SPARE_KEY);
  }

  /** Whether this object is a spare nobody has claimed yet. */
  get held(): boolean {
    return this.expiresAt !== undefined;
  }

  /** When an unclaimed spare goes. */
  get dueAt(): number | undefined {
    return this.expiresAt;
  }

  /** Whether the object is going (see end()). */
  get isDiscarded(): boolean {
    return this.discarded;
  }

  /** Records it as a spare until `expiresAt`, when the alarm discards it unless it was claimed. */
  async hold(expiresAt: number): Promise<void> {
    this.expiresAt = expiresAt;
    await this.storage.put(SPARE_KEY, expiresAt);
    await this.alarms.schedule(SPARE_TASK, expiresAt);
  }

  /**
   * Takes the spare for a new workspace: true once, if it is still held. The
   * check and the change come before the first await, so an expiry cannot interleave.
   */
  async claim(): Promise<boolean> {
    if (this.expiresAt === undefined || this.discarded) return false;
    this.expiresAt = undefined;
    await this.storage.delete(SPARE_KEY);
    await this.alarms.cancel(SPARE_TASK);
    return true;
  }

  /** Whether an unclaimed spare is due to go. */
  isDue(now = Date.now()): boolean {
    return this.expiresAt !== undefined && now >= this.expiresAt;
  }

  /**
   * The object is going (its spare expired, or its owner deleted it): it
   * takes no claim from now on. True when it was an unclaimed spare.
   */
  end(): boolean {
    const held = this.expiresAt !== undefined;
    this.expiresAt = undefined;
    this.discarded = true;
    return held;
  }
}
