import { DurableObject } from "cloudflare:workers";
import { ErrorCode } from "../protocol/errors";
import type { WorkspaceStatus } from "../protocol/workspace";
import { FileWatcher } from "./files/file-watcher";
import { handleFilesRequest } from "./files/files-handler";
import { Files } from "./files/sandbox-files";
import { WORKSPACE_ROOT } from "./files/workspace-path";
import { describe, jsonError } from "./http";

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
  /** File operations confined to /workspace (symlinks included). */
  private readonly files: Files;
  private readonly fileWatcher: FileWatcher;
  private readyForExec: Promise<void> | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.files = new Files({ exec: (cmd, options) => this.execWhenUp(cmd, options) }, { confineTo: WORKSPACE_ROOT });
    this.fileWatcher = new FileWatcher(async () => {
      await this.ensureRunning();
      return { exec: (cmd, options) => this.execWhenUp(cmd, options) };
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
    container.start({ image, enableInternet: this.env.SANDBOX_INTERNET !== "false" });
    await container.setInactivityTimeout(INACTIVITY_TIMEOUT_MS);
  }

  /**
   * WebSockets and streams reach the workspace through fetch(); the Worker
   * has already checked who is asking. Each feature owns one path prefix.
   */
  override async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
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
}
