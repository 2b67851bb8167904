import { DurableObject } from "cloudflare:workers";
import type { BackupList, BackupRecord, RestoreResult } from "../protocol/backups";
import { ErrorCode } from "../protocol/errors";
import type { GitCredentials, GitHubDeviceCode, GitHubSignIn } from "../protocol/git";
import { isLanguageServerId } from "../protocol/language-servers";
import type {
  EgressLog,
  EgressLogEntry,
  NetworkPolicy,
  NetworkSettings,
  SecretInfo,
  SecretInput,
} from "../protocol/network";
import { MAX_SECRETS } from "../protocol/network";
import type { DevServerState, PreviewsOverview } from "../protocol/previews";
import type { TerminalInfo } from "../protocol/terminal";
import type { SaveResult, WorkspaceStatus } from "../protocol/workspace";
import { DEFAULT_TEMPLATE, type WorkspaceTemplate } from "../protocol/workspaces";
import type { Activity } from "./activity";
import { AlarmScheduler } from "./alarms";
import { restartTerminals } from "./backups/directory-archive";
import { runSetupRecipe } from "./backups/setup-recipe";
import { WorkspaceBackups } from "./backups/workspace-backups";
import { AppError, describe, type RpcResult, settle } from "./errors";
import { fileRoutes } from "./files/file-routes";
import { FileWatcher } from "./files/file-watcher";
import { Files } from "./files/sandbox-files";
import { type RepositorySource, startClone } from "./git/clone";
import { GitCli } from "./git/git-cli";
import { gitCredentials, gitSecret, gitSecretName } from "./git/git-credentials";
import { gitRoutes } from "./git/git-routes";
import { GitHubDeviceFlow } from "./git/github-device-flow";
import { ownerIdentity } from "./git/identity";
import { SourceControl } from "./git/source-control";
import { drainBody, errorResponse } from "./http";
import { archiveRoutes } from "./lifecycle/archive-routes";
import { Lifecycle, type StartPlan } from "./lifecycle/lifecycle";
import { type LifecycleSettings, lifecycleSettings, platformTimeoutMs } from "./lifecycle/settings";
import { LanguageServers } from "./lsp/language-servers";
import { trustInterceptionCa } from "./network/ca-trust";
import type { EgressRules } from "./network/egress-rules";
import type { OutboundProps } from "./network/outbound";
import { WorkspaceNetwork } from "./network/workspace-network";
import { PREVIEW_HEADER } from "./preview-host";
import { DEV_SERVER_COMMAND } from "./previews/dev-server";
import type { Grant } from "./previews/grants";
import { previewNotFound } from "./previews/pages";
import { SWEEP_TASK, WorkspacePreviews } from "./previews/workspace-previews";
import { WORKSPACE_ROOT } from "./sandbox/environment";
import { sandboxInstanceType } from "./sandbox/instance-type";
import { ContainerSandbox, isUnavailable } from "./sandbox/sandbox";
import { searchRoutes } from "./search/search-routes";
import { WorkspaceSearch } from "./search/workspace-search";
import { endsWithSession, SessionSockets } from "./session-sockets";
import { seedTemplate } from "./templates";
import { endTerminal, listTerminals, openTerminal, refuseTerminal, terminalSleeping } from "./terminal-bridge";
import { CALLER_HEADER, SESSION_HEADER } from "./workspace-access";
import { routeWorkspaceRequest, type WorkspaceRoutes } from "./workspace-router";

/**
 * One workspace: a Durable Object that owns one container (through the
 * sandbox adapter, worker/sandbox/). It records its owner when created and refuses everyone
 * else: every RPC method takes the caller's user id first (the Worker's
 * `workspaceStub()` supplies it), and fetch() reads it from CALLER_HEADER.
 */
export class Workspace extends DurableObject<Env> {
  private owner: string | undefined;
  /** The one alarm of this object, shared by named tasks (worker/alarms.ts). */
  protected readonly alarms: AlarmScheduler;
  /** Start/wake, save, stop, and the alarm that saves and sleeps (worker/lifecycle/). */
  protected readonly lifecycle: Lifecycle;
  /** File operations confined to /workspace (symlinks included). */
  private readonly files: Files;
  private readonly fileWatcher: FileWatcher;
  /** One language server per language, shared by every page (worker/lsp/). */
  private readonly languageServers: LanguageServers;
  /** Search in files and the file index (ripgrep in the container). */
  private readonly search: WorkspaceSearch;
  /** git in /workspace (worker/git/). */
  private readonly git: GitCli;
  private readonly scm: SourceControl;
  /** The container, as every feature uses it. */
  protected readonly sandbox: ContainerSandbox;
  /** The HTTP surface (see fetch()), made on first use. */
  private routes: WorkspaceRoutes | undefined;
  /** Open terminal sockets by the session that opened them (closed when it ends). */
  private readonly sessionSockets = new SessionSockets();
  /** Preview hostnames, their access grants and share links (worker/previews/). */
  protected readonly previews: WorkspacePreviews;
  /** Where the container may connect, its secrets and its request log (worker/network/). */
  protected readonly network: WorkspaceNetwork;
  /** The user's files in R2, versioned, apart from the system (worker/backups/). */
  protected readonly backups: WorkspaceBackups;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.alarms = new AlarmScheduler(ctx.storage);
    this.sandbox = new ContainerSandbox(ctx, () => this.lifecycle.ensureRunning());
    this.files = new Files(this.sandbox, { confineTo: WORKSPACE_ROOT });
    this.fileWatcher = new FileWatcher(this.sandbox);
    this.languageServers = new LanguageServers({ sandbox: this.sandbox, watcher: this.fileWatcher });
    this.search = new WorkspaceSearch(this.sandbox);
    this.git = new GitCli(this.sandbox);
    this.scm = new SourceControl(this.git, this.files);
    this.previews = new WorkspacePreviews({
      storage: ctx.storage,
      sandbox: this.sandbox,
      scheduleSweep: (at) => (at === undefined ? this.alarms.cancel(SWEEP_TASK) : this.alarms.schedule(SWEEP_TASK, at)),
      previewDomain: env.PREVIEW_DOMAIN,
      connections: { begin: () => this.activity.begin(), end: () => this.activity.end() },
    });
    this.alarms.register(SWEEP_TASK, () => this.previews.sweep());
    this.network = new WorkspaceNetwork({
      storage: ctx.storage,
      running: () => this.sandbox.running,
      openAvailable: env.SANDBOX_INTERNET !== "false",
      restart: () => this.lifecycle.restart(),
      workspaceId: () => ctx.id.name,
      changed: async () => {
        if (!this.network.intercepting) return;
        try {
          await this.sandbox.interceptOutbound(this.outbound());
        } catch (error) {
          // Gone meanwhile: the next start registers the new rules anyway.
          if (!this.sandbox.running) return;
          throw new AppError(
            ErrorCode.CONTAINER_UNAVAILABLE,
            `The change is saved, but the running container could not be given it (${describe(error)}); it keeps the previous rules until it restarts. Save and sleep, then wake it, to apply it now.`,
          );
        }
      },
    });
    this.backups = new WorkspaceBackups({
      bucket: () => this.backupBucket(),
      storage: ctx.storage,
      sandbox: this.sandbox,
      prefix: `workspaces/${ctx.id.toString()}/`,
      image: async () => (await ctx.storage.get<string>("lifecycle:image")) || this.image(),
      tag: `workspace ${ctx.id.toString().slice(0, 8)}`,
    });
    this.lifecycle = new Lifecycle({
      storage: ctx.storage,
      sandbox: this.sandbox,
      alarms: this.alarms,
      settings: () => this.settings(),
      startOptions: () => {
        const { enableInternet, intercept } = this.network.startWith();
        return {
          image: this.image(),
          enableInternet,
          instance: sandboxInstanceType(this.env.SANDBOX_INSTANCE_TYPE),
          ...(intercept ? { outbound: this.outbound() } : {}),
        };
      },
      afterStart: (from) => this.afterStart(from),
      backups: this.backups,
      hibernatedSockets: () => ctx.getWebSockets().length,
      tag: `container ${ctx.id.toString().slice(0, 8)}`,
    });
    void ctx.blockConcurrencyWhile(async () => {
      this.owner = await ctx.storage.get<string>("owner");
      await this.network.load();
      await this.lifecycle.load();
      // A restarted Durable Object starts without an inactivity timeout even
      // when its container kept running, and a deploy may have cut its start
      // short before the intercepts were registered: registering again replaces them.
      if (this.sandbox.running) {
        await this.sandbox.setInactivityTimeout(platformTimeoutMs(await this.settings()));
        if (this.network.intercepting) await this.sandbox.interceptOutbound(this.outbound());
      }
    });
  }

  /** Throws NOT_FOUND (never "forbidden": that would say it exists) unless the caller owns this workspace. */
  protected authorize(caller: string): void {
    if (!this.owner || this.owner !== caller) throw noSuchWorkspace();
  }

  /**
   * The body of every RPC method: the caller must own the workspace, and a
   * failure comes back as data (RPC keeps only the message of a thrown error).
   */
  protected call<T>(caller: string, operation: () => T | Promise<T>): Promise<RpcResult<T>> {
    return settle(() => {
      this.authorize(caller);
      return operation();
    });
  }

  /**
   * Records the owner and name of a new workspace; one made from a
   * repository starts empty and clones it on its first start.
   */
  create(
    caller: string,
    name: string,
    template: WorkspaceTemplate = DEFAULT_TEMPLATE,
    repository?: RepositorySource,
  ): Promise<RpcResult<void>> {
    return settle(async () => {
      if (this.owner && this.owner !== caller) throw noSuchWorkspace();
      this.owner = caller;
      await this.ctx.storage.put({
        owner: caller,
        name,
        template: repository ? "empty" : template,
        createdAt: new Date().toISOString(),
        ...(repository ? { repository } : {}),
      });
      await this.network.initialize();
    });
  }

  /**
   * After a start: the interception CA trusted, preview hostnames for dev
   * servers; on the very first start the template, git's author (the owner)
   * and the clone of a repository.
   */
  private async afterStart(from: StartPlan["from"]): Promise<void> {
    // A container whose clients cannot check the CA still has its files and terminals: log, go on.
    await trustInterceptionCa(this.sandbox, this.network.intercepting).catch((error) =>
      console.error(`workspace ${this.ctx.id.name ?? ""}: ${describe(error)}`),
    );
    await this.previews.writePreviewHosts();
    const template = await this.ctx.storage.get<WorkspaceTemplate>("template");
    // Only over the image's /workspace, and at most once: never over a user's files.
    if (template && from === "template" && !(await this.ctx.storage.get<boolean>("seeded"))) {
      await this.ctx.storage.put("seeded", true);
      await seedTemplate(this.sandbox, template);
      if (this.owner) {
        const { name, email } = ownerIdentity(this.owner);
        await this.scm.ensureIdentity(name, email);
      }
      const repository = await this.ctx.storage.get<RepositorySource>("repository");
      if (repository) await startClone(this.sandbox, repository);
      else await runSetupRecipe(this.sandbox);
    }
    // A move to the current image: what was installed outside the files is gone; the recipe puts it back.
    if (from === "backup") await runSetupRecipe(this.sandbox);
  }

  rename(caller: string, name: string): Promise<RpcResult<void>> {
    return this.call(caller, () => this.ctx.storage.put("name", name));
  }

  /** Destroys the container and everything stored for this workspace. */
  destroy(caller: string): Promise<RpcResult<void>> {
    return this.call(caller, async () => {
      await this.languageServers.dispose();
      this.sandbox.announceDeletion();
      await this.lifecycle.retire();
      await this.backups.deleteAll();
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      this.previews.forget();
      this.owner = undefined;
    });
  }

  /**
   * Open connections count as activity: call `this.activity.begin()` when a
   * terminal or preview WebSocket is accepted and `this.activity.end()` when
   * it closes, so an idle save + stop never cuts off someone connected.
   */
  protected get activity(): Activity {
    return this.lifecycle.activity;
  }

  /** Starts the container, waking it from its latest snapshot, when it is not running. */
  protected ensureRunning(): Promise<void> {
    return this.lifecycle.ensureRunning();
  }

  /** The lifecycle's timings (a test subclass shortens them). */
  protected async settings(): Promise<LifecycleSettings> {
    return lifecycleSettings(this.env.INACTIVITY_TIMEOUT_SECONDS);
  }

  /** Where backups go (a test subclass may make it fail). */
  protected backupBucket(): R2Bucket | undefined {
    return this.env.BACKUPS;
  }

  /** The image a new container starts from (a test subclass may name one that cannot start). */
  protected image(): string {
    return this.sandbox.image;
  }

  /** The Outbound entrypoint for this workspace's container (worker/network/outbound.ts). */
  private outbound(): Fetcher {
    const exports = this.ctx.exports as unknown as {
      Outbound(options: { props: OutboundProps }): Fetcher;
    };
    return exports.Outbound({ props: { workspace: this.ctx.id.toString(), version: this.network.version } });
  }

  override async alarm(): Promise<void> {
    await this.alarms.run();
  }

  /**
   * WebSockets and streams reach the workspace through fetch(), by the one
   * route table below; the Worker has already checked who is asking and
   * what they sent.
   */
  override async fetch(request: Request): Promise<Response> {
    // A preview hostname's request (only the Worker sets this header; it strips client copies).
    // Its token is its permission; a workspace nobody created has no grants.
    if (request.headers.has(PREVIEW_HEADER)) {
      return this.owner ? this.previews.fetch(request) : previewNotFound();
    }
    const caller = request.headers.get(CALLER_HEADER);
    if (!caller || !this.owner || caller !== this.owner) {
      // Read what the client still sends: a body left unread breaks the next request on its connection.
      await drainBody(request);
      return errorResponse(noSuchWorkspace());
    }
    if (this.wouldWake(request)) {
      return errorResponse(
        new AppError(
          ErrorCode.WORKSPACE_ASLEEP,
          "The workspace is not running, and reading never wakes it: wake it first (POST /api/workspaces/{id}/wake, or Wake in the IDE).",
        ),
      );
    }
    this.lifecycle.activity.touch();
    this.routes ??= {
      "GET /terminals": (request, url) => this.openTerminal(request, url),
      "GET /lsp": (request, url) => this.openLanguageServer(request, url),
      ...fileRoutes(
        {
          files: this.files,
          watcher: this.fileWatcher,
          sandbox: this.sandbox,
          awake: () => this.lifecycle.whenAwake(),
          asleep: () => this.lifecycle.isAsleep(),
        },
        (operation) => this.lifecycle.shared(operation),
      ),
      ...archiveRoutes(this.lifecycle, this.sandbox),
      "GET /backups/download": (_request, url) => this.downloadBackup(url),
      ...searchRoutes(this.search, this.sandbox),
      ...gitRoutes({
        scm: this.scm,
        git: this.git,
        wake: () => this.sandbox.wake(),
        shared: (operation) => this.lifecycle.shared(operation),
        identity: () => ownerIdentity(this.owner ?? caller),
      }),
    };
    const response = await routeWorkspaceRequest(this.routes, request);
    // An event stream (the file watch) ends with its session, like a terminal.
    if (!response.headers.get("Content-Type")?.startsWith("text/event-stream")) return response;
    return endsWithSession(response, this.sessionSockets, request.headers.get(SESSION_HEADER) ?? "");
  }

  /**
   * A GET (reading files, a download, the export) is read-only: it never
   * starts a container, so a link on another site cannot wake a workspace
   * with its owner's cookie. Waking is `POST .../wake`. The file watcher
   * waits for a container without starting one, and a terminal's WebSocket
   * upgrade carries the IDE's Origin (checked by the Worker), so both pass.
   */
  private wouldWake(request: Request): boolean {
    if (request.method !== "GET" || request.headers.get("Upgrade")?.toLowerCase() === "websocket") return false;
    const path = new URL(request.url).pathname;
    // The watch waits for a container; a backup download as stored needs none (as .tar.gz it checks itself).
    if (path === "/files/watch" || path === "/backups/download") return false;
    return !this.sandbox.running && !this.lifecycle.isStarting;
  }

  /** `GET /terminals?name=N&cols&rows&wake`: a terminal's WebSocket (the Worker checked the name). */
  private async openTerminal(request: Request, url: URL): Promise<Response> {
    const name = url.searchParams.get("name") ?? "";
    // Automatic reconnects ask not to wake a sleeping workspace (an open tab is
    // not use); a container that vanished is brought back for them.
    if (url.searchParams.get("wake") === "0" && this.lifecycle.isAsleep()) {
      return terminalSleeping(this.lifecycle.failureMessage);
    }
    try {
      await this.ensureRunning();
    } catch (error) {
      return refuseTerminal(`The container could not start: ${describe(error)}`);
    }
    // Its session is remembered with it: ending that session closes the socket.
    const session = request.headers.get(SESSION_HEADER) ?? "";
    let forget = () => {};
    return openTerminal(this.sandbox, request, name, {
      begin: (close) => {
        this.activity.begin();
        forget = this.sessionSockets.add(session, close);
      },
      end: () => {
        forget();
        this.activity.end();
      },
    });
  }

  /**
   * `GET /lsp?language=L&wake`: a page's WebSocket to the workspace's `L`
   * server (the Worker checked the name). Opening it starts the container;
   * automatic reconnects (`wake=0`) leave a sleeping workspace asleep.
   */
  private async openLanguageServer(request: Request, url: URL): Promise<Response> {
    const language = url.searchParams.get("language") ?? "";
    if (!isLanguageServerId(language)) {
      throw new AppError(ErrorCode.UNKNOWN_LANGUAGE, `No language server "${language}".`);
    }
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      throw new AppError(ErrorCode.UPGRADE_REQUIRED, "This is a WebSocket route: connect with a WebSocket client.");
    }
    if (url.searchParams.get("wake") === "0" && this.lifecycle.isAsleep()) {
      throw new AppError(ErrorCode.WORKSPACE_ASLEEP, "The workspace is asleep; open a file or a terminal to wake it.");
    }
    await this.ensureRunning();
    // Like a terminal's, it ends with the session that opened it.
    const session = request.headers.get(SESSION_HEADER) ?? "";
    let forget = () => {};
    return this.languageServers.open(language, {
      onMessage: () => this.activity.touch(),
      onOpen: (close) => {
        forget = this.sessionSockets.add(session, close);
      },
      onClose: () => forget(),
    });
  }

  /** The workspace's terminals; an empty list when the container is not running (this does not start it). */
  listTerminals(caller: string): Promise<RpcResult<TerminalInfo[]>> {
    return this.call(caller, () => (this.sandbox.running ? listTerminals(this.sandbox) : []));
  }

  /** Ends a terminal and what runs in it; false when there is no such terminal. */
  endTerminal(caller: string, name: string): Promise<RpcResult<boolean>> {
    return this.call(caller, () => (this.sandbox.running ? endTerminal(this.sandbox, name) : false));
  }

  /** Starts or wakes the container if needed and reports its state with `uname -a` from inside. */
  status(caller: string, id: string): Promise<RpcResult<WorkspaceStatus>> {
    return this.call(caller, async () => ({ ...(await this.lifecycle.wake(id)), backup: await this.backups.health() }));
  }

  /** The state without starting anything and without counting as activity (for polling). */
  peek(caller: string, id: string): Promise<RpcResult<WorkspaceStatus>> {
    return this.call(caller, async () => ({
      ...(await this.lifecycle.status(id)),
      backup: await this.backups.health(),
    }));
  }

  // Backups (worker/backups/): the routes in worker/routes/backups.ts call these.

  listBackups(caller: string): Promise<RpcResult<BackupList>> {
    return this.call(caller, async () => ({ backups: await this.backups.list(), backup: await this.backups.health() }));
  }

  /** A backup now (waking the workspace): it has the disk alone, like a save. */
  createBackup(caller: string): Promise<RpcResult<BackupRecord>> {
    return this.call(caller, () =>
      this.lifecycle.exclusive(async () => {
        await this.lifecycle.ensureRunning();
        return this.backups.create("manual");
      }),
    );
  }

  /**
   * Replaces the files with a backup's, after backing up the current ones
   * (the undo). Terminals start new shells in the restored tree; the file
   * watcher starts again, so pages and language servers read everything anew.
   */
  restoreBackup(caller: string, backupId: string): Promise<RpcResult<RestoreResult>> {
    return this.call(caller, () =>
      this.lifecycle.exclusive(async () => {
        await this.lifecycle.ensureRunning();
        const result = await this.backups.restore(backupId);
        const when = result.restored.createdAt.slice(0, 16).replace("T", " ");
        await restartTerminals(
          this.sandbox,
          `cloud-ide: the files were restored from the backup of ${when} UTC; this terminal started again in the restored tree.`,
        ).catch((error) => console.error(`restarting terminals after a restore: ${describe(error)}`));
        this.fileWatcher.restart();
        return result;
      }),
    );
  }

  /** "Move to the current image": back up, then a new container from the current image with those files. */
  upgrade(caller: string, id: string): Promise<RpcResult<WorkspaceStatus>> {
    return this.call(caller, async () => {
      await this.lifecycle.upgrade();
      return { ...(await this.lifecycle.status(id)), backup: await this.backups.health() };
    });
  }

  deleteBackup(caller: string, backupId: string): Promise<RpcResult<void>> {
    return this.call(caller, () => this.backups.delete(backupId));
  }

  pinBackup(caller: string, backupId: string, pinned: boolean): Promise<RpcResult<BackupRecord>> {
    return this.call(caller, () => this.backups.setPinned(backupId, pinned));
  }

  /**
   * `GET /backups/download?id&format`: as stored (`.tar.zst`, from R2, no
   * container needed) or, by default, as `.tar.gz` (recompressed by zstd and
   * gzip in the running container; a GET never wakes it).
   */
  private async downloadBackup(url: URL): Promise<Response> {
    const { record, body } = await this.backups.object(url.searchParams.get("id") ?? "");
    const name =
      `${(await this.ctx.storage.get<string>("name")) ?? "workspace"}-${record.createdAt.slice(0, 16).replace(/[T:]/g, "-")}`
        .replace(/[^A-Za-z0-9._-]+/g, "-")
        .slice(0, 120);
    if (url.searchParams.get("format") === "zst") {
      return new Response(body, {
        headers: {
          "Content-Type": "application/zstd",
          "Content-Disposition": `attachment; filename="${name}.tar.zst"`,
          "Content-Length": String(record.size),
          "Cache-Control": "no-store",
        },
      });
    }
    try {
      await this.lifecycle.whenAwake();
    } catch (error) {
      await body.cancel().catch(() => {});
      throw error;
    }
    const proc = await this.sandbox.exec(["sh", "-c", "zstd -q -d -c | gzip -c"], {
      stdin: body,
      stdout: "pipe",
      stderr: "pipe",
      wake: false,
    });
    const stdout = proc.stdout;
    if (!stdout) throw new Error("zstd has no stdout");
    this.activity.begin();
    let ended = false;
    const end = () => {
      if (!ended) this.activity.end();
      ended = true;
    };
    const out = stdout.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        async flush(controller) {
          try {
            const code = await proc.exitCode;
            if (code !== 0) controller.error(new Error(`zstd | gzip exited with ${code}`));
          } finally {
            end();
          }
        },
        cancel: end,
      }),
    );
    return new Response(out, {
      headers: {
        "Content-Type": "application/gzip",
        "Content-Disposition": `attachment; filename="${name}.tar.gz"`,
        "Cache-Control": "no-store",
      },
    });
  }

  /** A snapshot now; resolves once its id is stored. */
  save(caller: string): Promise<RpcResult<SaveResult>> {
    return this.call(caller, () => this.lifecycle.save());
  }

  /** Save, then stop the container. */
  stop(caller: string): Promise<RpcResult<SaveResult>> {
    return this.call(caller, () => this.lifecycle.stop());
  }

  /** Start fresh after a snapshot failed to restore. */
  reset(caller: string): Promise<RpcResult<void>> {
    return this.call(caller, async () => {
      await this.lifecycle.reset();
      // The next start is from the image: it gets the workspace's template again.
      await this.ctx.storage.delete("seeded");
    });
  }

  // Previews (worker/previews/): the routes in worker/routes/previews.ts call these.

  /** The owner's grant `id` for a port renewed, or a new one. */
  openPreview(caller: string, port: number, id?: string): Promise<RpcResult<Grant>> {
    return this.call(caller, () => this.previews.openOwner(port, id));
  }

  createShare(caller: string, port: number, ttlSeconds: number): Promise<RpcResult<Grant>> {
    return this.call(caller, () => this.previews.createShare(port, ttlSeconds));
  }

  /** Live grants of a port: share links and the owner's panes. */
  listShares(caller: string, port: number): Promise<RpcResult<Grant[]>> {
    return this.call(caller, () => this.previews.grants.listed(port));
  }

  revokeShare(caller: string, port: number, id: string): Promise<RpcResult<boolean>> {
    return this.call(caller, () => this.previews.revoke(port, id));
  }

  /** Closes the terminal sockets opened with these sessions (all when null): they ended. */
  endSessions(caller: string, sessionIds: string[] | null): Promise<RpcResult<number>> {
    return this.call(caller, () => this.sessionSockets.close(sessionIds, "You were signed out."));
  }

  /** Ends every preview grant of this workspace (its owner signed out everywhere). */
  revokeAllGrants(caller: string): Promise<RpcResult<number>> {
    return this.call(caller, () => this.previews.revokeAll());
  }

  /**
   * What listens, for the preview pane's poll. It neither wakes a sleeping
   * workspace nor counts as use: an open tab alone must let it sleep.
   */
  previewsOverview(caller: string): Promise<RpcResult<PreviewsOverview>> {
    return this.call(caller, async () => {
      const nothing: PreviewsOverview = { ports: [], devServer: { state: "stopped", command: DEV_SERVER_COMMAND } };
      // A container still starting has nothing listening yet (and may not answer exec).
      if (!this.sandbox.running || this.lifecycle.isStarting) return nothing;
      try {
        const [ports, devServer] = await Promise.all([
          this.previews.listeningPorts({ wake: false }),
          this.previews.devServer({ wake: false }),
        ]);
        return { ports, devServer };
      } catch (error) {
        // It stopped (or vanished) between the check and the exec.
        if (isUnavailable(error)) return nothing;
        throw error;
      }
    });
  }

  runDevServer(caller: string): Promise<RpcResult<DevServerState>> {
    return this.call(caller, () => this.previews.runDevServer());
  }

  stopDevServer(caller: string): Promise<RpcResult<void>> {
    return this.call(caller, () => this.previews.stopDevServer());
  }

  // Git credentials (worker/git/git-credentials.ts): a token per git host, kept
  // as a network secret; worker/routes/git.ts calls these.

  gitCredentials(caller: string): Promise<RpcResult<GitCredentials>> {
    return this.call(caller, () => this.listGitCredentials());
  }

  setGitToken(caller: string, host: string, token: string): Promise<RpcResult<GitCredentials>> {
    return this.call(caller, async () => {
      await this.network.putSecret(gitSecretName(host), gitSecret(host, token), MAX_SECRETS);
      return this.listGitCredentials();
    });
  }

  removeGitToken(caller: string, host: string): Promise<RpcResult<boolean>> {
    return this.call(caller, () => this.network.deleteSecret(gitSecretName(host)));
  }

  startGitHubSignIn(caller: string): Promise<RpcResult<GitHubDeviceCode>> {
    return this.call(caller, () => this.github.start());
  }

  pollGitHubSignIn(caller: string): Promise<RpcResult<GitHubSignIn>> {
    return this.call(caller, () => this.github.poll());
  }

  private async listGitCredentials(): Promise<GitCredentials> {
    return { hosts: gitCredentials(await this.network.secretInfos()), githubSignIn: this.github.available };
  }

  private githubFlow: GitHubDeviceFlow | undefined;

  /** GitHub's device sign-in; its token becomes github.com's. Made on first use (a test subclass answers for GitHub). */
  private get github(): GitHubDeviceFlow {
    this.githubFlow ??= new GitHubDeviceFlow(
      this.githubClientId(),
      (request) => this.githubFetch(request),
      async (token) => {
        await this.network.putSecret(gitSecretName("github.com"), gitSecret("github.com", token), MAX_SECRETS);
      },
    );
    return this.githubFlow;
  }

  /** The OAuth app's client id for GitHub sign-in; none turns it off. */
  protected githubClientId(): string | undefined {
    return this.env.GITHUB_OAUTH_CLIENT_ID || undefined;
  }

  /** Sends a request to GitHub (a test subclass answers it itself). */
  protected githubFetch(request: Request): Promise<Response> {
    return fetch(request);
  }

  // Network (worker/network/): the routes in worker/routes/network.ts call these.

  networkSettings(caller: string): Promise<RpcResult<NetworkSettings>> {
    return this.call(caller, () => this.network.settings());
  }

  /** A checked policy; `restart` confirms a restart when the mode change needs one. */
  updateNetwork(caller: string, policy: NetworkPolicy, restart: boolean): Promise<RpcResult<NetworkSettings>> {
    return this.call(caller, () => this.network.update(policy, restart));
  }

  networkSecrets(caller: string): Promise<RpcResult<SecretInfo[]>> {
    return this.call(caller, () => this.network.secretInfos());
  }

  putSecret(caller: string, name: string, secret: Required<SecretInput>): Promise<RpcResult<SecretInfo>> {
    return this.call(caller, () => this.network.putSecret(name, secret, MAX_SECRETS));
  }

  deleteSecret(caller: string, name: string): Promise<RpcResult<boolean>> {
    return this.call(caller, () => this.network.deleteSecret(name));
  }

  /** The outbound requests after `after`; it neither wakes the workspace nor counts as use. */
  networkLog(caller: string, after: number): Promise<RpcResult<EgressLog>> {
    return this.call(caller, () => this.network.logSince(after));
  }

  /**
   * For the Outbound entrypoint only (no caller: it runs for this object's
   * own container, named in its props): the rules in force, secrets included.
   */
  egressRules(): EgressRules {
    return this.network.rules();
  }

  /** For the Outbound entrypoint only: one request it decided, for the log. */
  egressRecord(entry: Omit<EgressLogEntry, "id">): void {
    this.network.record(entry);
  }
}

function noSuchWorkspace(): AppError {
  return new AppError(ErrorCode.NOT_FOUND, "No such workspace.");
}
