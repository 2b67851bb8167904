import { DurableObject } from "cloudflare:workers";
import { ErrorCode } from "../protocol/errors";
import type { DevServerState, PreviewsOverview } from "../protocol/previews";
import type { WorkspaceStatus } from "../protocol/workspace";
import { AlarmScheduler } from "./alarms";
import { describe, jsonError } from "./http";
import { PREVIEW_HEADER } from "./preview-host";
import type { Grant } from "./previews/grants";
import { SWEEP_TASK, WorkspacePreviews } from "./previews/workspace-previews";

/** How long a container keeps running once nothing uses the workspace. */
const INACTIVITY_TIMEOUT_MS = 5 * 60_000;
const WORKSPACE_DIR = "/workspace";

/**
 * One workspace: a Durable Object that owns one container through
 * `ctx.container`. The Worker reaches it by workspace id.
 */
export class Workspace extends DurableObject<Env> {
  private starting: Promise<void> | undefined;
  private lastError: string | undefined;
  private readonly previews: WorkspacePreviews;
  /** The object's one alarm, shared by features: add a task name and its handler here. */
  private readonly alarms: AlarmScheduler;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.previews = new WorkspacePreviews({
      storage: ctx.storage,
      container: () => this.container,
      ensureRunning: () => this.ensureRunning(),
      scheduleSweep: (at) => (at === undefined ? this.alarms.cancel(SWEEP_TASK) : this.alarms.schedule(SWEEP_TASK, at)),
      previewDomain: env.PREVIEW_DOMAIN,
    });
    this.alarms = new AlarmScheduler(ctx.storage, {
      [SWEEP_TASK]: () => this.previews.sweep(),
    });
    const container = ctx.container;
    // A restarted Durable Object starts without an inactivity timeout even
    // when its container kept running.
    if (container?.running) {
      void ctx.blockConcurrencyWhile(() => container.setInactivityTimeout(INACTIVITY_TIMEOUT_MS));
    }
  }

  private get container(): Container {
    const container = this.ctx.container;
    if (!container) throw new Error("This Durable Object has no container: check `containers` in wrangler.jsonc.");
    return container;
  }

  /** Starts the container when it is not running; concurrent callers share one start. */
  ensureRunning(): Promise<void> {
    if (this.container.running) return Promise.resolve();
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(): Promise<void> {
    const container = this.container;
    const image = container.images.sandbox;
    if (!image) throw new Error('No image named "sandbox" in wrangler.jsonc `containers[].images`.');
    container.start({ image, enableInternet: this.env.SANDBOX_INTERNET !== "false" });
    await container.setInactivityTimeout(INACTIVITY_TIMEOUT_MS);
    await this.previews.writePreviewHosts(container);
  }

  override async alarm(): Promise<void> {
    await this.alarms.run();
  }

  /**
   * WebSockets and streams reach the workspace through fetch(); the Worker
   * has already checked who is asking. Each feature owns one path prefix.
   */
  override async fetch(request: Request): Promise<Response> {
    // Only the Worker sets this header (it strips client copies): a preview hostname's request.
    if (request.headers.has(PREVIEW_HEADER)) return this.previews.fetch(request);
    const { pathname } = new URL(request.url);
    return jsonError(404, ErrorCode.NOT_FOUND, `The workspace has no route ${pathname}.`);
  }

  /** Starts the container if needed and reports its state with `uname -a` from inside. */
  async status(id: string): Promise<WorkspaceStatus> {
    try {
      await this.ensureRunning();
      const uname = await this.container.exec(["uname", "-a"], { cwd: WORKSPACE_DIR });
      const output = await uname.output();
      if (output.exitCode !== 0) {
        throw new Error(`uname exited with ${output.exitCode}: ${new TextDecoder().decode(output.stderr)}`);
      }
      this.lastError = undefined;
      return { id, state: "running", kernel: new TextDecoder().decode(output.stdout).trim() };
    } catch (error) {
      this.lastError = describe(error);
      console.error(`workspace ${id}: ${this.lastError}`);
      return {
        id,
        state: "failed",
        error: { code: ErrorCode.CONTAINER_UNAVAILABLE, message: `The container could not start: ${this.lastError}` },
      };
    }
  }

  // Previews (worker/previews/): the routes in worker/routes/previews.ts call these.

  openPreview(port: number): Promise<Grant> {
    return this.previews.openOwner(port);
  }

  createShare(port: number, ttlSeconds: number): Promise<Grant> {
    return this.previews.createShare(port, ttlSeconds);
  }

  listShares(port: number): Promise<Grant[]> {
    return this.previews.grants.shares(port);
  }

  revokeShare(port: number, shareId: string): Promise<boolean> {
    return this.previews.revokeShare(port, shareId);
  }

  /** Test hook only: the route that calls it answers 404 unless CLOUD_IDE_TEST_HOOKS is set. */
  expireShareForTest(shareId: string): Promise<boolean> {
    return this.previews.expireShare(shareId);
  }

  async previewsOverview(): Promise<PreviewsOverview> {
    const [ports, devServer] = await Promise.all([this.previews.listeningPorts(), this.previews.devServer()]);
    return { ports, devServer };
  }

  runDevServer(): Promise<DevServerState> {
    return this.previews.runDevServer();
  }

  stopDevServer(): Promise<void> {
    return this.previews.stopDevServer();
  }
}
