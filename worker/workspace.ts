import { DurableObject } from "cloudflare:workers";
import { ErrorCode } from "../protocol/errors";
import type { SaveResult, WorkspaceStatus } from "../protocol/workspace";
import type { Activity } from "./activity";
import { AlarmScheduler } from "./alarms";
import { jsonError } from "./http";
import { handleLifecycleFetch } from "./lifecycle/fetch";
import { Lifecycle } from "./lifecycle/lifecycle";
import { type LifecycleSettings, lifecycleSettings, parseOverrides, platformTimeoutMs } from "./lifecycle/settings";

/** Test-only per-workspace timings (see worker/routes/lifecycle.ts). */
const OVERRIDES_KEY = "lifecycle:overrides";

/**
 * One workspace: a Durable Object that owns one container through
 * `ctx.container`. The Worker reaches it by workspace id.
 */
export class Workspace extends DurableObject<Env> {
  /** The one alarm of this object, shared by named tasks. */
  readonly alarms: AlarmScheduler;
  readonly lifecycle: Lifecycle;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.alarms = new AlarmScheduler(ctx.storage);
    this.lifecycle = new Lifecycle(
      ctx,
      this.alarms,
      () => this.settings(),
      () => {
        const image = this.container.images.sandbox;
        if (!image) throw new Error('No image named "sandbox" in wrangler.jsonc `containers[].images`.');
        return { image, enableInternet: this.env.SANDBOX_INTERNET !== "false" };
      },
    );
    const container = ctx.container;
    // A restarted Durable Object starts without an inactivity timeout even
    // when its container kept running.
    if (container?.running) {
      void ctx.blockConcurrencyWhile(async () =>
        container.setInactivityTimeout(platformTimeoutMs(await this.settings())),
      );
    }
  }

  private get container(): Container {
    const container = this.ctx.container;
    if (!container) throw new Error("This Durable Object has no container: check `containers` in wrangler.jsonc.");
    return container;
  }

  /**
   * Open connections count as activity: call `activity.begin()` when a
   * terminal or preview WebSocket opens and `activity.end()` when it closes.
   */
  get activity(): Activity {
    return this.lifecycle.activity;
  }

  /** Starts the container (waking it from its latest snapshot) when it is not running. */
  ensureRunning(): Promise<void> {
    return this.lifecycle.ensureRunning();
  }

  /** Runs a disk-touching operation so that it never overlaps a save followed by a stop. */
  exclusive<T>(operation: () => Promise<T>): Promise<T> {
    return this.lifecycle.exclusive(operation);
  }

  private async settings(): Promise<LifecycleSettings> {
    const overrides = parseOverrides(await this.ctx.storage.get(OVERRIDES_KEY));
    return { ...lifecycleSettings(this.env.INACTIVITY_TIMEOUT_SECONDS), ...overrides };
  }

  override async alarm(): Promise<void> {
    await this.alarms.run();
  }

  /**
   * WebSockets and streams reach the workspace through fetch(); the Worker
   * has already checked who is asking. Each feature owns one path prefix.
   */
  override async fetch(request: Request): Promise<Response> {
    this.lifecycle.activity.touch();
    const { pathname } = new URL(request.url);
    if (pathname.startsWith("/lifecycle/")) return handleLifecycleFetch(this.lifecycle, this.container, request);
    return jsonError(404, ErrorCode.NOT_FOUND, `The workspace has no route ${pathname}.`);
  }

  /** Wakes or starts the container if needed and reports its state with `uname -a` from inside. */
  status(id: string): Promise<WorkspaceStatus> {
    return this.lifecycle.wake(id);
  }

  /** The state without starting anything and without counting as activity (for polling). */
  peek(id: string): Promise<WorkspaceStatus> {
    return this.lifecycle.status(id);
  }

  save(): Promise<SaveResult> {
    return this.lifecycle.save();
  }

  stop(): Promise<SaveResult> {
    return this.lifecycle.stop();
  }

  /** Start fresh after a snapshot failed to restore. */
  reset(): Promise<void> {
    return this.lifecycle.reset();
  }

  /** Test hooks; the route refuses them unless the dev server enabled them. */
  async testConfigure(options: { overrides?: unknown; snapshotId?: string }): Promise<void> {
    if (options.overrides !== undefined) {
      await this.ctx.storage.put(OVERRIDES_KEY, parseOverrides(options.overrides));
      await this.lifecycle.rescheduleCheck();
    }
    if (options.snapshotId) await this.lifecycle.adoptSnapshot(options.snapshotId);
  }
}
