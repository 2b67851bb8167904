import { DurableObject } from "cloudflare:workers";
import { ErrorCode } from "../protocol/errors";
import type { DevServerState, PreviewsOverview } from "../protocol/previews";
import { isTerminalName, type TerminalInfo } from "../protocol/terminal";
import type { WorkspaceStatus } from "../protocol/workspace";
import { AlarmScheduler } from "./alarms";
import { FileWatcher } from "./files/file-watcher";
import { handleFilesRequest } from "./files/files-handler";
import { Files } from "./files/sandbox-files";
import { WORKSPACE_ROOT } from "./files/workspace-path";
import { describe, jsonError, WORKSPACE_NOT_FOUND } from "./http";
import { PREVIEW_HEADER } from "./preview-host";
import type { Grant } from "./previews/grants";
import { previewNotFound } from "./previews/pages";
import { SWEEP_TASK, WorkspacePreviews } from "./previews/workspace-previews";
import { endTerminal, listTerminals, openTerminal } from "./terminal-bridge";
import { CALLER_HEADER } from "./workspace-access";

/** How long a container keeps running once nothing uses the workspace. */
const INACTIVITY_TIMEOUT_MS = 5 * 60_000;
const WORKSPACE_DIR = "/workspace";
/** How long one start may take from start() to accepting exec(), and how often to try. */
const START_ATTEMPT_TIMEOUT_MS = 20_000;
const START_ATTEMPTS = 4;

/**
 * One workspace: a Durable Object that owns one container through
 * `ctx.container`. It records its owner when created and refuses everyone
 * else: every RPC method takes the caller's user id first (the Worker's
 * `workspaceStub()` supplies it), and fetch() reads it from CALLER_HEADER.
 */
export class Workspace extends DurableObject<Env> {
  private starting: Promise<void> | undefined;
  private owner: string | undefined;
  /** File operations confined to /workspace (symlinks included). */
  private readonly files: Files;
  private readonly fileWatcher: FileWatcher;
  private readyForExec: Promise<void> | undefined;
  private readonly previews: WorkspacePreviews;
  /** The object's one alarm, shared by features: add a task name and its handler here. */
  private readonly alarms: AlarmScheduler;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.files = new Files({ exec: (cmd, options) => this.execWhenUp(cmd, options) }, { confineTo: WORKSPACE_ROOT });
    this.fileWatcher = new FileWatcher(async () => {
      await this.ensureRunning();
      return { exec: (cmd, options) => this.execWhenUp(cmd, options) };
    });
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
    void ctx.blockConcurrencyWhile(async () => {
      this.owner = await ctx.storage.get<string>("owner");
      // A restarted Durable Object starts without an inactivity timeout even
      // when its container kept running.
      if (container?.running) await container.setInactivityTimeout(INACTIVITY_TIMEOUT_MS);
    });
  }

  private get container(): Container {
    const container = this.ctx.container;
    if (!container) throw new Error("This Durable Object has no container: check `containers` in wrangler.jsonc.");
    return container;
  }

  /** Throws (→ 404 in the Worker) unless the caller owns this workspace. */
  protected authorize(caller: string): void {
    if (!this.owner || this.owner !== caller) {
      throw new Error(`${WORKSPACE_NOT_FOUND}: no such workspace`);
    }
  }

  /** Records the owner and name of a new workspace. */
  async create(caller: string, name: string): Promise<void> {
    if (this.owner && this.owner !== caller) throw new Error(`${WORKSPACE_NOT_FOUND}: no such workspace`);
    this.owner = caller;
    await this.ctx.storage.put({ owner: caller, name, createdAt: new Date().toISOString() });
  }

  async rename(caller: string, name: string): Promise<void> {
    this.authorize(caller);
    await this.ctx.storage.put("name", name);
  }

  /** Destroys the container and everything stored for this workspace. */
  async destroy(caller: string): Promise<void> {
    this.authorize(caller);
    const container = this.ctx.container;
    if (container?.running) await container.destroy();
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.previews.forget();
    this.owner = undefined;
  }

  /** Starts the container when it is not running; concurrent callers share one start. */
  protected ensureRunning(): Promise<void> {
    if (this.container.running) return Promise.resolve();
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /**
   * exec() right after start() can find the container not running yet (seen
   * under load locally): retry that one error for a few seconds.
   */
  private async execWhenUp(cmd: string[], options?: ContainerExecOptions): Promise<ExecProcess> {
    await this.execReady();
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.container.exec(cmd, options);
      } catch (error) {
        if (attempt >= 20 || !/not running/.test(describe(error))) throw error;
        await this.ensureRunning();
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  /** Resolves once a trivial command runs (a fresh container can answer 126 for a moment). */
  private execReady(): Promise<void> {
    if (!this.container.running) this.readyForExec = undefined;
    this.readyForExec ??= (async () => {
      for (let attempt = 0; attempt < 40; attempt++) {
        try {
          const probe = await this.container.exec(["true"], { cwd: "/" });
          if ((await probe.exitCode) === 0) return;
        } catch {
          await this.ensureRunning();
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    return this.readyForExec;
  }

  private async start(): Promise<void> {
    const container = this.container;
    const image = container.images.sandbox;
    if (!image) throw new Error('No image named "sandbox" in wrangler.jsonc `containers[].images`.');
    // A start can fail on its way up (locally: a slow Docker engine under load
    // misses workerd's wait for the network sidecar). Try a few times.
    for (let attempt = 1; ; attempt++) {
      if (!container.running) container.start({ image, enableInternet: this.env.SANDBOX_INTERNET !== "false" });
      await container.setInactivityTimeout(INACTIVITY_TIMEOUT_MS);
      try {
        await this.waitUntilExecReady();
        break;
      } catch (error) {
        if (attempt >= START_ATTEMPTS) throw error;
        console.warn(`container start attempt ${attempt} failed: ${describe(error)}; retrying`);
        await container.destroy().catch(() => undefined);
        await scheduler.wait(1000 * attempt);
      }
    }
    await this.previews.writePreviewHosts(container);
  }

  override async alarm(): Promise<void> {
    await this.alarms.run();
  }

  /**
   * start() returns before the container accepts exec(), and the first exec()
   * fails with "not running" until it does. Retry a no-op until it runs.
   */
  private async waitUntilExecReady(): Promise<void> {
    const deadline = Date.now() + START_ATTEMPT_TIMEOUT_MS;
    for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
      try {
        const probe = await this.container.exec(["true"]);
        await probe.exitCode;
        return;
      } catch (error) {
        if (Date.now() > deadline || !/not running/i.test(describe(error))) throw error;
        await scheduler.wait(delay);
      }
    }
  }

  /**
   * WebSockets and streams reach the workspace through fetch(); the Worker
   * has already checked who is asking. Each feature owns one path prefix.
   */
  override async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    // A preview hostname's request (only the Worker sets this header; it strips client copies).
    // Its token is its permission; a workspace nobody created has no grants.
    if (request.headers.has(PREVIEW_HEADER)) {
      return this.owner ? this.previews.fetch(request) : previewNotFound();
    }
    const caller = request.headers.get(CALLER_HEADER);
    if (!caller || !this.owner || caller !== this.owner) {
      return jsonError(404, ErrorCode.NOT_FOUND, "No such workspace.");
    }
    if (pathname.startsWith("/terminals/")) return this.openTerminal(request, pathname.slice("/terminals/".length));
    if (pathname.startsWith("/files/")) {
      return handleFilesRequest(request, {
        files: this.files,
        watcher: this.fileWatcher,
        ensureRunning: () => this.ensureRunning(),
        container: () => this.container,
      });
    }
    return jsonError(404, ErrorCode.NOT_FOUND, `The workspace has no route ${pathname}.`);
  }

  private async openTerminal(request: Request, name: string): Promise<Response> {
    if (!isTerminalName(name))
      return jsonError(400, ErrorCode.INVALID_TERMINAL_NAME, `No terminal can be named "${name}".`);
    await this.ensureRunning();
    return openTerminal(this.container, request, name);
  }

  /** The workspace's terminals; an empty list when the container is not running (this does not start it). */
  async listTerminals(caller: string): Promise<TerminalInfo[]> {
    this.authorize(caller);
    if (!this.container.running) return [];
    return listTerminals(this.container);
  }

  /** Ends a terminal and what runs in it; false when there is no such terminal. */
  async endTerminal(caller: string, name: string): Promise<boolean> {
    this.authorize(caller);
    if (!this.container.running) return false;
    return endTerminal(this.container, name);
  }

  /** Starts the container if needed and reports its state with `uname -a` from inside. */
  async status(caller: string, id: string): Promise<WorkspaceStatus> {
    this.authorize(caller);
    try {
      await this.ensureRunning();
      const uname = await this.container.exec(["uname", "-a"], { cwd: WORKSPACE_DIR });
      const output = await uname.output();
      if (output.exitCode !== 0) {
        throw new Error(`uname exited with ${output.exitCode}: ${new TextDecoder().decode(output.stderr)}`);
      }
      return { id, state: "running", kernel: new TextDecoder().decode(output.stdout).trim() };
    } catch (error) {
      const reason = describe(error);
      console.error(`workspace ${id}: ${reason}`);
      return {
        id,
        state: "failed",
        error: { code: ErrorCode.CONTAINER_UNAVAILABLE, message: `The container could not start: ${reason}` },
      };
    }
  }

  // Previews (worker/previews/): the routes in worker/routes/previews.ts call these.

  openPreview(caller: string, port: number): Promise<Grant> {
    this.authorize(caller);
    return this.previews.openOwner(port);
  }

  createShare(caller: string, port: number, ttlSeconds: number): Promise<Grant> {
    this.authorize(caller);
    return this.previews.createShare(port, ttlSeconds);
  }

  listShares(caller: string, port: number): Promise<Grant[]> {
    this.authorize(caller);
    return this.previews.grants.shares(port);
  }

  revokeShare(caller: string, port: number, shareId: string): Promise<boolean> {
    this.authorize(caller);
    return this.previews.revokeShare(port, shareId);
  }

  /** Test hook only: the route that calls it answers 404 unless CLOUD_IDE_TEST_HOOKS is set. */
  expireShareForTest(caller: string, shareId: string): Promise<boolean> {
    this.authorize(caller);
    return this.previews.expireShare(shareId);
  }

  async previewsOverview(caller: string): Promise<PreviewsOverview> {
    this.authorize(caller);
    const [ports, devServer] = await Promise.all([this.previews.listeningPorts(), this.previews.devServer()]);
    return { ports, devServer };
  }

  runDevServer(caller: string): Promise<DevServerState> {
    this.authorize(caller);
    return this.previews.runDevServer();
  }

  stopDevServer(caller: string): Promise<void> {
    this.authorize(caller);
    return this.previews.stopDevServer();
  }
}
