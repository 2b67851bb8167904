import { DurableObject } from "cloudflare:workers";
import { ErrorCode } from "../protocol/errors";
import { isTerminalName, type TerminalInfo } from "../protocol/terminal";
import type { WorkspaceStatus } from "../protocol/workspace";
import { describe, jsonError, WORKSPACE_NOT_FOUND } from "./http";
import { endTerminal, listTerminals, openTerminal, refuseTerminal } from "./terminal-bridge";
import { CALLER_HEADER } from "./workspace-access";

/** How long a container keeps running once nothing uses the workspace. */
const INACTIVITY_TIMEOUT_MS = 5 * 60_000;
const WORKSPACE_DIR = "/workspace";

/**
 * One workspace: a Durable Object that owns one container through
 * `ctx.container`. It records its owner when created and refuses everyone
 * else: every RPC method takes the caller's user id first (the Worker's
 * `workspaceStub()` supplies it), and fetch() reads it from CALLER_HEADER.
 */
export class Workspace extends DurableObject<Env> {
  private starting: Promise<void> | undefined;
  private owner: string | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
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
    const caller = request.headers.get(CALLER_HEADER);
    if (!caller || !this.owner || caller !== this.owner) {
      return jsonError(404, ErrorCode.NOT_FOUND, "No such workspace.");
    }
    if (pathname.startsWith("/terminals/")) return this.openTerminal(request, pathname.slice("/terminals/".length));
    return jsonError(404, ErrorCode.NOT_FOUND, `The workspace has no route ${pathname}.`);
  }

  private async openTerminal(request: Request, name: string): Promise<Response> {
    if (!isTerminalName(name))
      return jsonError(400, ErrorCode.INVALID_TERMINAL_NAME, `No terminal can be named "${name}".`);
    try {
      await this.ensureRunning();
    } catch (error) {
      return refuseTerminal(`The container could not start: ${describe(error)}`);
    }
    return openTerminal(this.container, request, name, () => this.ensureRunning());
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
}
