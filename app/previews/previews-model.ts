import type { PreviewAccess, PreviewsOverview } from "../../protocol/previews";
import { errorMessage } from "../api/http";
import type { PreviewsApi } from "../api/previews";

const POLL_MS = 2_000;
/** The owner's grant lasts 5 minutes past its last renewal; renew every minute while the pane shows it. */
const RENEW_MS = 60_000;

export interface PreviewsView {
  /** Listening ports and the Run button's dev server. */
  overview?: PreviewsOverview;
  overviewError?: string;
  /** The owner's URL for the port the pane shows. */
  access?: PreviewAccess;
  accessError?: string;
}

/**
 * The preview pane's state: the overview, polled while the pane is mounted
 * ({@link watch}), and the owner's preview URL for the port it shows,
 * renewed while it shows it ({@link show}). React reads it through
 * `useSyncExternalStore(model.subscribe, model.getSnapshot)`.
 */
export class PreviewsModel {
  private view: PreviewsView = {};
  private readonly listeners = new Set<() => void>();
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  private watchers = 0;
  /** Counts {@link show} calls, so an answer for a port no longer shown is dropped. */
  private showing = 0;

  constructor(
    private readonly api: Pick<PreviewsApi, "overview" | "open">,
    private readonly intervals = { poll: POLL_MS, renew: RENEW_MS },
  ) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): PreviewsView => this.view;

  /** Polls the overview until the last watcher stops. */
  watch(): () => void {
    if (this.watchers++ === 0) void this.poll();
    return () => {
      if (--this.watchers === 0) clearTimeout(this.pollTimer);
    };
  }

  /** Reads the overview now (after a change the pane made). */
  readonly refresh = async (): Promise<void> => {
    try {
      this.set({ overview: await this.api.overview(), overviewError: undefined });
    } catch (error) {
      this.set({ overviewError: errorMessage(error) });
    }
  };

  /**
   * Opens the owner's URL for `port` (none: the pane shows nothing
   * listening) and renews it until the returned function is called.
   */
  show(port: number | undefined): () => void {
    const turn = ++this.showing;
    if (this.view.access && this.view.access.port !== port) this.set({ access: undefined });
    if (port === undefined) return () => {};
    const open = async () => {
      try {
        // Renew this pane's own grant; a revoked or expired one comes back as a new URL.
        const held = this.view.access?.port === port ? this.view.access.id : undefined;
        const next = await this.api.open(port, held);
        if (turn !== this.showing) return;
        // Same URL on renewal: keep the object so the frame does not reload.
        if (this.view.access?.url !== next.url) this.set({ access: next });
        if (this.view.accessError !== undefined) this.set({ accessError: undefined });
      } catch (error) {
        if (turn === this.showing) this.set({ accessError: errorMessage(error) });
      }
    };
    void open();
    const timer = setInterval(open, this.intervals.renew);
    return () => {
      if (turn === this.showing) this.showing++;
      clearInterval(timer);
    };
  }

  private async poll(): Promise<void> {
    clearTimeout(this.pollTimer);
    await this.refresh();
    if (this.watchers > 0) this.pollTimer = setTimeout(() => void this.poll(), this.intervals.poll);
  }

  private set(change: Partial<PreviewsView>): void {
    this.view = { ...this.view, ...change };
    for (const listener of this.listeners) listener();
  }
}
