/**
 * What counts as someone using a workspace: open connections (terminal and
 * preview WebSockets, streamed downloads) and recent requests. The lifecycle
 * alarm saves and stops a workspace only when nothing is open and nothing
 * happened for the idle limit.
 *
 * The count lives in memory: an accepted WebSocket keeps the Durable Object
 * in memory. The time of the last activity is also handed to `persist`
 * (at most every few seconds), because an alarm may run in a restarted object
 * that has seen nothing yet.
 */
const PERSIST_EVERY_MS = 5_000;

export class Activity {
  private open = 0;
  /** 0 until this instance of the object sees activity. */
  private last = 0;
  private persisted = 0;

  constructor(private readonly persist: (lastActiveAt: number) => void = () => {}) {}

  /** A connection or long operation starts; call {@link end} once when it ends. */
  begin(): void {
    this.open++;
    this.touch(true);
  }

  end(): void {
    this.open = Math.max(0, this.open - 1);
    this.touch(true);
  }

  /** A request arrived. */
  touch(force = false): void {
    const now = Date.now();
    this.last = now;
    if (force || now - this.persisted >= PERSIST_EVERY_MS) {
      this.persisted = now;
      this.persist(now);
    }
  }

  get connections(): number {
    return this.open;
  }

  /** When this instance last saw activity (ms since epoch), or 0. */
  get lastActiveAt(): number {
    return this.last;
  }

  /**
   * Nothing open and nothing happened for `limitMs`. `stored` is the last
   * activity persisted by an earlier instance of the object.
   */
  isIdle(limitMs: number, now = Date.now(), stored = 0, otherConnections = 0): boolean {
    return this.open + otherConnections === 0 && now - Math.max(this.last, stored) >= limitMs;
  }
}
