import type { ErrorBody } from "../../protocol/errors";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { type ApiErrorCode, ApiRequestError, ClientErrorCode } from "../api/http";
import type { WorkspaceApi } from "../api/workspace";

/** Polling while nothing moves; a start or save is followed closely. */
const IDLE_POLL_MS = 10_000;
const BUSY_POLL_MS = 1_000;

/** What the page shows about a workspace's container (a failure may also be the app's own: the network). */
export type StatusView = Omit<WorkspaceStatus, "id" | "error"> & {
  error?: Omit<ErrorBody, "code"> & { code: ApiErrorCode };
};

/**
 * The workspace's state for the header and the lifecycle controls. {@link
 * start} wakes the workspace when the page opens (`GET status` starts its
 * container), then follows its state with `?wake=0`, which does not count as
 * use: an open tab alone does not keep a workspace awake, an open terminal
 * does. React reads it through `useSyncExternalStore(model.subscribe, model.getSnapshot)`.
 */
export class WorkspaceStatusModel {
  private status: StatusView = { state: "starting" };
  private readonly listeners = new Set<() => void>();
  /** While a wake call runs, polls only report its boot phases. */
  private waking = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;

  constructor(
    private readonly api: Pick<WorkspaceApi, "status">,
    private readonly pollMs = { idle: IDLE_POLL_MS, busy: BUSY_POLL_MS },
  ) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): StatusView => this.status;

  /** Wakes the workspace and follows its state until the returned function is called. */
  start(): () => void {
    this.running = true;
    void this.refresh();
    this.schedule(this.pollMs.busy);
    return () => {
      this.running = false;
      clearTimeout(this.timer);
    };
  }

  /** Wakes or starts the workspace and shows the result. */
  readonly refresh = async (): Promise<void> => {
    this.waking++;
    this.set({ ...this.status, state: "starting", phase: undefined, error: undefined });
    try {
      this.set(await this.read(true));
    } finally {
      this.waking--;
    }
  };

  /** Reads the state without waking anything. */
  readonly poll = async (): Promise<void> => {
    const next = await this.read(false);
    if (this.waking > 0 && next.state !== "starting") return;
    this.set(next);
  };

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    await this.poll();
    if (!this.running) return;
    const { state } = this.status;
    const busy = this.waking > 0 || state === "starting" || state === "saving";
    this.schedule(busy ? this.pollMs.busy : this.pollMs.idle);
  }

  private async read(wake: boolean): Promise<StatusView> {
    try {
      return await this.api.status({ wake });
    } catch (error) {
      const err =
        error instanceof ApiRequestError ? error : new ApiRequestError(0, ClientErrorCode.NETWORK, String(error));
      return { ...this.status, state: "failed", error: { code: err.code, message: err.message } };
    }
  }

  /** A poll that answers what the page shows already changes nothing (the header does not render again). */
  private set(status: StatusView): void {
    if (JSON.stringify(status) === JSON.stringify(this.status)) return;
    this.status = status;
    for (const listener of this.listeners) listener();
  }
}
