import { DurableObject } from "cloudflare:workers";
import { ErrorCode } from "../protocol/errors";
import type { GitCredentials } from "../protocol/git";
import type { InviteInfo, MemberRole } from "../protocol/members";
import type { EgressLogEntry } from "../protocol/network";
import { MAX_SECRETS } from "../protocol/network";
import type { Role } from "../protocol/roles";
import type { Machine, WorkspaceSettings } from "../protocol/workspace";
import { DEFAULT_TEMPLATE, type WorkspaceSummary, type WorkspaceTemplate } from "../protocol/workspaces";
import type { Activity } from "./activity";
import { AgentChats } from "./agents/agent-chats";
import { AgentGateway } from "./agents/agent-gateway";
import { AGENT_HEADER } from "./agents/agent-header";
import { WorkspaceFiles } from "./agents/file-tools";
import { AlarmScheduler } from "./alarms";
import type { UploadOutcome } from "./backups/archive-transfers";
import { BackupFlows } from "./backups/backup-flows";
import { WorkspaceBackups } from "./backups/workspace-backups";
import { WorkspaceCollab } from "./collab/workspace-collab";
import { userDirectory } from "./directory";
import { type DoorDeps, dispatch } from "./door/dispatch";
import { roleOf } from "./door/members";
import type { WorkspaceParts } from "./door/parts";
import { AppError, describe, notFound, type RpcResult, settle } from "./errors";
import { FileWatcher } from "./files/file-watcher";
import { JournaledFiles } from "./files/journaled-files";
import type { RepositorySource } from "./git/clone";
import { GitCli } from "./git/git-cli";
import { gitCredentials, gitSecret, gitSecretName } from "./git/git-credentials";
import { GitHubDeviceFlow } from "./git/github-device-flow";
import { ownerIdentity } from "./git/identity";
import { SourceControl } from "./git/source-control";
import { drainBody, errorResponse } from "./http";
import { afterLaunch, afterStart, type ContainerSetupDeps } from "./lifecycle/container-setup";
import { Lifecycle } from "./lifecycle/lifecycle";
import { SaveJournal } from "./lifecycle/save-journal";
import { type LifecycleSettings, lifecycleSettings, platformTimeoutMs } from "./lifecycle/settings";
import { SPARE_TASK, Spare } from "./lifecycle/spare";
import { LanguageServers } from "./lsp/language-servers";
import { type Joiner, WorkspaceMembers } from "./members/workspace-members";
import type { EgressRules } from "./network/egress-rules";
import type { OutboundProps } from "./network/outbound";
import { WorkspaceNetwork } from "./network/workspace-network";
import { previewNotFound } from "./previews/pages";
import { PREVIEW_HEADER } from "./previews/preview-host";
import { SWEEP_TASK, WorkspacePreviews } from "./previews/workspace-previews";
import { WORKSPACE_ROOT } from "./sandbox/environment";
import { type InstanceType, sandboxInstanceType } from "./sandbox/instance-type";
import { ContainerSandbox } from "./sandbox/sandbox";
import { WorkspaceSearch } from "./search/workspace-search";
import { SessionSockets } from "./session-sockets";
import { authorizedKeys } from "./ssh/authorized-keys";
import { SshServer } from "./ssh/ssh-server";
import { WORKSPACE_ROUTES } from "./workspace-routes";

/** What an unclaimed spare answers: its status (is it running yet?) and its deletion. */
const SPARE_ROUTES = /^(GET \/api\/workspaces\/[^/]+\/status|DELETE \/api\/workspaces\/[^/]+)$/;
/** Storage key of the chosen machine size. */
const MACHINE_KEY = "machine";
/**
 * One workspace: a Durable Object that owns one container (through the
 * sandbox adapter, worker/sandbox/). It records its owner when created.
 * Every request of a user reaches it through fetch(), where the door
 * (worker/door/) serves the routes its features declare
 * (worker/workspace-routes.ts) to callers with the role each needs; its RPC
 * methods are the internal ones only (made by the Directory's owner, the
 * end of sessions, the Outbound entrypoint).
 */
export class Workspace extends DurableObject<Env> {
  private owner: string | undefined;
  /** The machine size the owner chose (`PUT .../settings`); unset: the deployment's. */
  private chosenMachine: Machine | undefined;
  /** Who else may use it, and as what, and the invite links that admit them (worker/members/). */
  protected readonly members: WorkspaceMembers;
  /** The one alarm of this object, shared by named tasks (worker/alarms.ts). */
  protected readonly alarms: AlarmScheduler;
  /** Set while this is a spare started ahead of its owner's next new workspace (worker/lifecycle/spare.ts). */
  protected readonly spare: Spare;
  /** Start/wake, save, stop, and the alarm that saves and sleeps (worker/lifecycle/). */
  protected readonly lifecycle: Lifecycle;
  /** File operations confined to /workspace (symlinks included). */
  /** Every write through the IDE is journaled (worker/files/journaled-files.ts). */
  private readonly files: JournaledFiles;
  protected readonly journal: SaveJournal;
  private readonly fileWatcher: FileWatcher;
  /** One language server per language, shared by every page (worker/lsp/). */
  private readonly languageServers: LanguageServers;
  /** Search in files and the file index (ripgrep in the container). */
  private readonly search: WorkspaceSearch;
  /** Open files as shared documents, and who is here (worker/collab/). */
  private readonly collab: WorkspaceCollab;
  /** git in /workspace (worker/git/). */
  private readonly git: GitCli;
  private readonly scm: SourceControl;
  /** The container, as every feature uses it. */
  protected readonly sandbox: ContainerSandbox;
  /** The door's view of this object (see fetch()), made on first use. */
  private door: DoorDeps | undefined;
  /** Open terminal sockets by the session that opened them (closed when it ends). */
  private readonly sessionSockets = new SessionSockets();
  /** Preview hostnames, their access grants and share links (worker/previews/). */
  protected readonly previews: WorkspacePreviews;
  /** Where the container may connect, its secrets and its request log (worker/network/). */
  protected readonly network: WorkspaceNetwork;
  /** The user's files in R2, versioned, apart from the system (worker/backups/). */
  protected readonly backups: WorkspaceBackups;
  /** Agents: their tokens, the MCP endpoint and the log of their calls (worker/agents/). */
  protected readonly agents: AgentGateway;
  /** The agent panel's conversations, one per person (worker/agents/agent-chats.ts). */
  protected readonly agentChats: AgentChats;
  /** sshd, started when an ssh tunnel opens (worker/ssh/). */
  private readonly ssh: SshServer;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.alarms = new AlarmScheduler(ctx.storage);
    this.spare = new Spare(ctx.storage, this.alarms);
    this.alarms.register(SPARE_TASK, () => this.expireSpare());
    this.sandbox = new ContainerSandbox(ctx, () => this.lifecycle.ensureRunning());
    this.backups = new WorkspaceBackups({
      bucket: () => this.backupBucket(),
      storage: ctx.storage,
      sandbox: this.sandbox,
      quick: this.sandbox.quick,
      prefix: `workspaces/${ctx.id.toString()}/`,
      image: async () => (await ctx.storage.get<string>("lifecycle:image")) || this.image(),
      tag: `workspace ${ctx.id.toString().slice(0, 8)}`,
      archiveRoute: () => this.routeArchives(),
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
          instance: this.machine(),
          ...(intercept ? { outbound: this.outbound() } : {}),
          ...this.containerEnv(),
        };
      },
      // Its python starts while the start's `uname` runs; a failed attempt's is started again by afterLaunch.
      onLaunch: () => this.sandbox.startAgent(),
      afterLaunch: () => afterLaunch(this.containerSetup),
      afterStart: (from) => afterStart(this.containerSetup, from),
      backups: this.backups,
      journal: {
        replay: (since) => this.files.replayJournal(since),
        dropThrough: (savedAt) => this.journal.dropThrough(savedAt),
      },
      hibernatedSockets: () => ctx.getWebSockets().length,
      disposable: () => this.spare.held,
      tag: `container ${ctx.id.toString().slice(0, 8)}`,
    });
    this.members = new WorkspaceMembers({
      storage: ctx.storage,
      env,
      sockets: this.sessionSockets,
      workspace: () => ({
        id: this.id,
        owner: this.owner,
        name: () => this.name(),
      }),
    });
    this.journal = new SaveJournal({
      bucket: () => this.journalBucket(),
      storage: ctx.storage,
      prefix: `journal/${ctx.id.toString()}/`,
      tag: `workspace ${ctx.id.toString().slice(0, 8)}`,
      // Past its bounds the journal is emptied by a checkpoint rather than grown.
      onFull: () => void this.lifecycle.exclusive(() => this.lifecycle.snapshot()).catch(() => {}),
    });
    const fileAccess = { confineTo: WORKSPACE_ROOT, agent: this.sandbox.agent };
    this.files = new JournaledFiles(this.sandbox, fileAccess, this.journal);
    this.fileWatcher = new FileWatcher(this.sandbox, this.lifecycle, WORKSPACE_ROOT, this.sandbox.agent);
    this.languageServers = new LanguageServers({ sandbox: this.sandbox, watcher: this.fileWatcher });
    this.search = new WorkspaceSearch(this.sandbox);
    this.collab = new WorkspaceCollab({
      storage: ctx.storage,
      files: this.files,
      watcher: this.fileWatcher,
      shared: (operation) => this.lifecycle.shared(operation),
      wake: () => this.sandbox.wake(),
    });
    // Short git commands (status, diff, commit) through the resident agent: no process start for each.
    this.git = new GitCli({ run: this.sandbox.quick.run, spawn: (argv, options) => this.sandbox.spawn(argv, options) });
    this.scm = new SourceControl(this.git, this.files);
    const agentTools = (origin: URL) => ({
      files: new WorkspaceFiles(this.files, (operation) => this.lifecycle.shared(operation)),
      search: this.search,
      git: this.git,
      scm: this.scm,
      sandbox: this.sandbox,
      previews: () => this.previews.ownerLinks(this.id, origin),
    });
    this.agents = new AgentGateway({
      storage: ctx.storage,
      workspaceId: () => ctx.id.name ?? "",
      touch: () => this.lifecycle.activity.touch(),
      tools: agentTools,
    });
    this.agentChats = new AgentChats({
      storage: ctx.storage,
      env,
      tools: agentTools,
      record: (entry) => this.agents.record(entry),
    });
    this.previews = new WorkspacePreviews({
      storage: ctx.storage,
      sandbox: this.sandbox,
      scheduleSweep: (at) => (at === undefined ? this.alarms.cancel(SWEEP_TASK) : this.alarms.schedule(SWEEP_TASK, at)),
      previewDomain: env.PREVIEW_DOMAIN,
      hasContainer: () => this.lifecycle.hasContainer,
      connections: { begin: () => this.activity.begin(), end: () => this.activity.end() },
    });
    this.alarms.register(SWEEP_TASK, () => this.previews.sweep());
    this.ssh = new SshServer({
      sandbox: this.sandbox,
      storage: ctx.storage,
      authorizedKeys: () => authorizedKeys(this.env, this.owner, this.members.roles()),
    });
    this.network = new WorkspaceNetwork({
      storage: ctx.storage,
      running: () => this.lifecycle.hasContainer,
      openAvailable: env.SANDBOX_INTERNET !== "false",
      restart: () => this.lifecycle.restart(),
      workspaceId: () => ctx.id.name,
      changed: async () => {
        if (!this.network.intercepting) return;
        try {
          await this.sandbox.interceptOutbound(this.outbound());
        } catch (error) {
          // Gone meanwhile: the next start registers the new rules anyway.
          if (!this.lifecycle.hasContainer) return;
          throw new AppError(
            ErrorCode.CONTAINER_UNAVAILABLE,
            `The change is saved, but the running container could not be given it (${describe(error)}); it keeps the previous rules until it restarts. Save and sleep, then wake it, to apply it now.`,
          );
        }
      },
    });
    void ctx.blockConcurrencyWhile(async () => {
      this.owner = await ctx.storage.get<string>("owner");
      this.chosenMachine = await ctx.storage.get<Machine>(MACHINE_KEY);
      await this.spare.load();
      await this.members.load();
      await this.network.load();
      await this.lifecycle.load();
      // A restarted Durable Object starts without an inactivity timeout even
      // when its container kept running, and a deploy may have cut its start
      // short before the intercepts were registered: registering again replaces them.
      if (this.lifecycle.isRunning) {
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
   * The body of an internal RPC method: the caller must own the workspace,
   * and a failure comes back as data (RPC keeps only the message of a thrown error).
   */
  protected call<T>(caller: string, operation: () => T | Promise<T>): Promise<RpcResult<T>> {
    return settle(() => {
      this.authorize(caller);
      return operation();
    });
  }

  /**
   * Records the owner and name of a new workspace; one made from a
   * repository starts empty and clones it on its first start. A spare of the
   * caller's (prepareSpare) becomes this workspace, its container already
   * running: what the first start does for a new workspace is done now.
   */
  create(
    caller: string,
    name: string,
    template: WorkspaceTemplate = DEFAULT_TEMPLATE,
    repository?: RepositorySource,
  ): Promise<RpcResult<void>> {
    return settle(async () => {
      if (this.owner && this.owner !== caller) throw noSuchWorkspace();
      // An object being deleted (a discarded spare among them: destroy() ends it first) takes no
      // workspace: the caller makes a new one.
      if (this.spare.isDiscarded) throw spareGone();
      const claimed = await this.spare.claim();
      this.owner = caller;
      await this.ctx.storage.put({
        owner: caller,
        name,
        template: repository ? "empty" : template,
        createdAt: new Date().toISOString(),
        ...(repository ? { repository } : {}),
      });
      await this.network.initialize();
      if (claimed) await this.claimed();
    });
  }

  /**
   * Makes this a spare for `caller`'s next new workspace and starts its
   * container (not waited for: the page asked ahead, and create() waits for
   * the start it shares). It has their network defaults and no template yet,
   * and is discarded at `expiresAt` unless create() claims it first.
   */
  prepareSpare(caller: string, expiresAt: number): Promise<RpcResult<void>> {
    return settle(async () => {
      if (this.owner ? this.owner !== caller || !this.spare.held : this.spare.isDiscarded) throw spareGone();
      if (!this.owner) {
        this.owner = caller;
        await this.ctx.storage.put("owner", caller);
        await this.network.initialize();
        await this.spare.hold(expiresAt);
      }
      // Its failure is the claim's to see (the workspace then starts when opened, as without a spare).
      this.lifecycle.ensureRunning().catch((error) => console.warn(`spare ${this.id}: ${describe(error)}`));
    });
  }

  /** A claimed spare: once its start is over, what a new workspace's first start does (afterStart). */
  private async claimed(): Promise<void> {
    this.lifecycle.activity.touch();
    // A start still in progress reads the template itself; one that failed is the next wake's to try.
    const started = await this.lifecycle.whenAwake().then(
      () => true,
      () => false,
    );
    if (started) await afterStart(this.containerSetup, "template");
  }

  /** An unclaimed spare goes now, with its container, never saved: false when this is no unclaimed spare. */
  protected async discardSpare(): Promise<boolean> {
    if (!this.spare.held) return false;
    await this.destroy();
    return true;
  }

  /** The spare's alarm: unclaimed when due, it is discarded. */
  private async expireSpare(): Promise<void> {
    const due = this.spare.dueAt;
    if (due === undefined) return;
    if (this.spare.isDue()) await this.discardSpare();
    else await this.alarms.schedule(SPARE_TASK, due);
  }

  /** The workspace's name, here and in its owner's list. */
  private async rename(name: string): Promise<WorkspaceSummary> {
    await this.ctx.storage.put("name", name);
    const renamed = this.owner ? await userDirectory(this.env, this.owner).rename(this.id, name) : undefined;
    if (!renamed) throw notFound("No such workspace.");
    await this.members.renamed();
    return renamed;
  }

  /** Destroys the container and everything stored for this workspace, and takes it off its owner's list. */
  private async destroy(): Promise<void> {
    const owner = this.owner;
    const wasSpare = this.spare.end();
    await this.members.forgetAll();
    this.agents.endAll();
    this.agentChats.stopAll();
    await this.languageServers.dispose();
    await this.sandbox.announceDeletion();
    await this.lifecycle.retire();
    await this.backups.deleteAll();
    await this.journal.deleteAll();
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.previews.forget();
    this.owner = undefined;
    if (!owner) return;
    const directory = userDirectory(this.env, owner);
    await (wasSpare ? directory.dropSpare(this.id) : directory.remove(this.id));
  }

  /** Start fresh after a snapshot failed to restore. */
  private async reset(): Promise<void> {
    await this.lifecycle.reset();
    // The next start is from the image: it gets the workspace's template again.
    await this.ctx.storage.delete("seeded");
  }

  /** The workspace's name as its owner gave it. */
  private async name(): Promise<string> {
    return (await this.ctx.storage.get<string>("name")) ?? "workspace";
  }

  /** This workspace's id (its Durable Object's name). */
  private get id(): string {
    return this.ctx.id.name ?? "";
  }

  /** The caller's role here: owner, a member's role, or none (worker/door/members.ts). */
  protected roleOf(caller: string): Role | undefined {
    return roleOf(caller, this.owner, this.members.roles());
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

  /** Where the save journal goes (a test subclass may turn it off, to measure what it costs). */
  protected journalBucket(): R2Bucket | undefined {
    return this.env.BACKUPS;
  }

  /** Where backups go (a test subclass may make it fail). */
  protected backupBucket(): R2Bucket | undefined {
    return this.env.BACKUPS;
  }

  /**
   * Routes the container's requests to the archive hostname to this object;
   * when it throws, archives go over the exec's stdio instead (the test
   * Worker makes it throw to exercise that path).
   */
  protected routeArchives(): Promise<void> {
    return this.sandbox.routeArchives();
  }

  /** The machine size its containers start on: the owner's choice, else the deployment's. */
  private machine(): InstanceType {
    return this.chosenMachine ?? sandboxInstanceType(this.env.SANDBOX_INSTANCE_TYPE);
  }

  /** Keeps a new machine size; a running workspace restarts on it (save, stop, start: files kept). */
  private async updateSettings(machine: Machine): Promise<WorkspaceSettings> {
    const changed = machine !== this.machine();
    this.chosenMachine = machine;
    await this.ctx.storage.put(MACHINE_KEY, machine);
    if (changed && this.sandbox.running) await this.lifecycle.restart();
    return { machine };
  }

  /** The image a new container starts from (a test subclass may name one that cannot start). */
  /** More of the container's environment: none in production (the test Worker's small disk). */
  protected containerEnv(): { env?: Record<string, string> } {
    return {};
  }

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
   * Every request of a user: the Worker checked the session and the origin
   * and names the caller in a header; the door does the rest (worker/door/dispatch.ts).
   */
  override async fetch(request: Request): Promise<Response> {
    // A preview hostname's request (only the Worker sets this header; it strips client copies).
    // Its token is its permission; a workspace nobody created has no grants.
    if (request.headers.has(PREVIEW_HEADER)) {
      return this.owner ? this.previews.fetch(request) : previewNotFound();
    }
    // An agent's MCP request: its bearer token is its permission (checked in the gateway), never a session.
    if (request.headers.has(AGENT_HEADER)) {
      if (!this.owner) {
        await drainBody(request);
        return errorResponse(
          new AppError(ErrorCode.AGENT_TOKEN_REFUSED, "This agent token is not valid for this workspace."),
        );
      }
      return this.agents.serve(request);
    }
    // An unclaimed spare is nobody's workspace yet, and is never saved: nothing but its status and
    // its deletion, so no work can be done in it and lost with it (worker/lifecycle/spare.ts).
    if (this.spare.held && !SPARE_ROUTES.test(`${request.method} ${new URL(request.url).pathname}`)) {
      await drainBody(request);
      return errorResponse(
        notFound("No such workspace: this is a spare; make it a workspace with POST /api/workspaces {spare}."),
      );
    }
    this.door ??= {
      routes: WORKSPACE_ROUTES,
      roleOf: (caller) => this.roleOf(caller),
      parts: () => this.parts,
      awake: () => this.lifecycle.hasContainer,
      touch: () => this.lifecycle.activity.touch(),
    };
    return dispatch(request, this.door);
  }

  /** What afterLaunch and afterStart use (worker/lifecycle/container-setup.ts). */
  private get containerSetup(): ContainerSetupDeps {
    return {
      tag: `workspace ${this.id}`,
      storage: this.ctx.storage,
      sandbox: this.sandbox,
      previews: this.previews,
      scm: this.scm,
      intercepting: () => this.network.intercepting,
      owner: () => this.owner,
    };
  }

  private partsMade: WorkspaceParts | undefined;

  /** What the routes' handlers use (worker/door/parts.ts). */
  private get parts(): WorkspaceParts {
    this.partsMade ??= {
      id: this.id,
      env: this.env,
      sandbox: this.sandbox,
      lifecycle: this.lifecycle,
      files: this.files,
      watcher: this.fileWatcher,
      search: this.search,
      git: this.git,
      scm: this.scm,
      github: this.github,
      previews: this.previews,
      network: this.network,
      languageServers: this.languageServers,
      members: this.members,
      collab: this.collab,
      sockets: this.sessionSockets,
      ssh: this.ssh,
      agents: this.agents,
      agentChats: this.agentChats,
      identity: () => ownerIdentity(this.owner ?? ""),
      record: {
        rename: (name) => this.rename(name),
        destroy: () => this.destroy(),
        reset: () => this.reset(),
        gitCredentials: () => this.listGitCredentials(),
        settings: async () => ({ machine: this.machine() }),
        updateSettings: (machine) => this.updateSettings(machine),
      },
      backups: new BackupFlows({
        id: this.id,
        backups: this.backups,
        lifecycle: this.lifecycle,
        sandbox: this.sandbox,
        watcher: this.fileWatcher,
        name: () => this.name(),
      }),
    };
    return this.partsMade;
  }

  /** Closes the sockets opened with these sessions of the caller, a member or the owner (all when null): they ended. */
  endSessions(caller: string, sessionIds: string[] | null): Promise<RpcResult<number>> {
    return settle(() => {
      if (!this.roleOf(caller)) throw noSuchWorkspace();
      return sessionIds
        ? this.sessionSockets.close(sessionIds, "You were signed out.")
        : this.sessionSockets.closeUser(caller, "You were signed out.");
    });
  }

  /**
   * For the Worker's invite routes (no session needed; the token is the
   * permission): what an invite link is for, if it may still admit someone.
   */
  checkInvite(token: string): Promise<RpcResult<InviteInfo>> {
    return settle(() => {
      if (!this.owner) throw new AppError(ErrorCode.INVITE_UNUSABLE, "This invite link's workspace no longer exists.");
      return this.members.checkInvite(token);
    });
  }

  /**
   * Admits `joiner` by an invite link (counting a use) and answers their
   * role. `mayJoin` false: only the owner may pass (a password session of
   * another owner is not made a member of someone else's workspace).
   */
  redeemInvite(token: string, joiner: Joiner, mayJoin: boolean): Promise<RpcResult<MemberRole | "owner">> {
    return settle(async () => {
      if (!this.owner) throw new AppError(ErrorCode.INVITE_UNUSABLE, "This invite link's workspace no longer exists.");
      await this.members.checkInvite(token);
      if (!mayJoin && joiner.id !== this.owner) {
        throw new AppError(
          ErrorCode.INVALID_STATE,
          "You are signed in with the owner's password: open the invite link in a private window to join as a guest.",
        );
      }
      return this.members.redeem(token, joiner);
    });
  }

  /** Ends every preview grant of this workspace (its owner signed out everywhere). */
  revokeAllGrants(caller: string): Promise<RpcResult<number>> {
    return this.call(caller, () => this.previews.revokeAll());
  }

  /** The hosts with a git token (never their values), and whether GitHub's sign-in is offered. */
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

  /** The ArchiveGateway's PUT: a backup's archive from the container (archive-transfers.ts; the token is its permission). */
  archiveReceive(token: string, body: ReadableStream<Uint8Array>): Promise<UploadOutcome> {
    return this.backups.transfers.receive(token, body);
  }

  /** The ArchiveGateway's GET: a restore's archive for the container; null for an unknown or used token. */
  archiveSend(token: string): ReadableStream<Uint8Array> | null {
    return this.backups.transfers.send(token) ?? null;
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
  return notFound("No such workspace.");
}

/** A spare that went (discarded, or deleted): the Worker then makes a new workspace instead. */
function spareGone(): AppError {
  return notFound("That spare workspace is gone.");
}
