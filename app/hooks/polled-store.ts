import { errorMessage } from "../api/http";

/**
 * A panel's state that the server changes behind its back: read again every
 * `pollMs` while at least one watcher (an open panel) wants it. Components
 * read it through useSyncExternalStore. A failed read keeps the last view and
 * sets `error` until a read works again.
 */
export abstract class PolledStore<View extends { error?: string }> {
  private readonly listeners = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private watchers = 0;

  protected constructor(
    protected view: View,
    private readonly pollMs: number,
  ) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): View => this.view;

  protected set(change: Partial<View>): void {
    this.view = { ...this.view, ...change };
    for (const listener of this.listeners) listener();
  }

  /** Polls until the last watcher stops; returns the stop. */
  watch(): () => void {
    if (this.watchers++ === 0) void this.poll();
    return () => {
      if (--this.watchers === 0) clearTimeout(this.timer);
    };
  }

  /** One read: what changed in the view (the error is cleared when it works). */
  protected abstract read(): Promise<Partial<View>>;

  private async poll(): Promise<void> {
    clearTimeout(this.timer);
    try {
      this.set({ ...(await this.read()), error: undefined });
    } catch (error) {
      this.set({ error: errorMessage(error) } as Partial<View>);
    }
    if (this.watchers > 0) this.timer = setTimeout(() => void this.poll(), this.pollMs);
  }
}
