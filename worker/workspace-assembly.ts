/**
 * Makes one Workspace's parts, each feature's object given what it needs of
 * the others: the wiring of the Workspace Durable Object (workspace.ts),
 * which keeps only its entrances and RPC methods. The parts reach each other
 * through closures, so the order they are made in is free.
 */
import { ErrorCode } from "../protocol/errors";
import { MAX_SECRETS } from "../protocol/network";
import { AgentChats } from "./agents/agent-chats";
import { AgentGateway } from "./agents/agent-gateway";
import { AlarmScheduler } from "./alarms";
import { BackupFlows } from "./backups/backup-flows";
import { WorkspaceBackups } from "./backups/workspace-backups";
import { WorkspaceCollab } from "./collab/workspace-collab";
import { AppError, describe } from "./errors";
import { FileWatcher } from "./files/file-watcher";
import { JournaledFiles } from "./files/journaled-files";
import { OutsideWrites, runPasses } from "./files/outside-writes";
import { SaveJournal } from "./files/save-journal";
import { WorkspaceFiles } from "./files/workspace-files";
import { GitCli } from "./git/git-cli";
import { gitCredentials, gitSecret, gitSecretName } from "./git/git-credentials";
import { GitHubDeviceFlow } from "./git/github-device-flow";
import { ownerIdentity } from "./git/identity";
import { SourceControl } from "./git/source-control";
import { afterLaunch, afterStart, type ContainerSetupDeps } from "./lifecycle/container-setup";
import { Lifecycle } from "./lifecycle/lifecycle";
import { type LifecycleSettings, platformTimeoutMs } from "./lifecycle/settings";
import { SPARE_TASK, Spare } from "./lifecycle/spare";
import { WorkspaceRecord } from "./lifecycle/workspace-record";
import { LanguageServers } from "./lsp/language-servers";
import { WorkspaceMembers } from "./members/workspace-members";
import type { OutboundProps } from "./network/outbound";
import { WorkspaceNetwork } from "./network/workspace-network";
import { SWEEP_TASK, WorkspacePreviews } from "./previews/workspace-previews";
import { WORKSPACE_ROOT } from "./sandbox/environment";
import { ContainerSandbox } from "./sandbox/sandbox";
import { WorkspaceSearch } from "./search/workspace-search";
import { SessionSockets } from "./session-sockets";
import { authorizedKeys } from "./ssh/authorized-keys";
import { SshServer } from "./ssh/ssh-server";
import type { WorkspaceParts } from "./workspace-parts";

/** What a test subclass of the Workspace may change (worker/testing/test-entry.ts); production's are plain. */
export interface WorkspaceHooks {
  /** The lifecycle's timings. */
  settings(): Promise<LifecycleSettings>;
  /** Where the save journal goes (none: saves are not journaled). */
  journalBucket(): R2Bucket | undefined;
  /** Where backups go. */
  backupBucket(): R2Bucket | undefined;
  /** Routes the container's archive hostname here; when it throws, archives go over an exec's stdio. */
  routeArchives(): Promise<void>;
  /** The image a new container starts from. */
  image(): string;
  /** More of the container's environment. */
  containerEnv(): { env?: Record<string, string> };
  /** The OAuth app's client id for GitHub's sign-in; none turns it off. */
  githubClientId(): string | undefined;
  /** Sends a request to GitHub. */
  githubFetch(request: Request): Promise<Response>;
}

/** The handlers' parts, and what only the Durable Object itself uses. */
export interface Workspace extends WorkspaceParts {
  files: JournaledFiles;
  alarms: AlarmScheduler;
  /** Set while this is a spare started ahead of its owner's next new workspace. */
  spare: Spare;
  journal: SaveJournal;
  /** The backups' store in R2 (`backups` is the flows the routes run). */
  backupStore: WorkspaceBackups;
  /** The Outbound entrypoint for this workspace's container (worker/network/outbound.ts). */
  outbound(): Fetcher;
  /** Reads what was stored, once, before the object serves anything (in blockConcurrencyWhile). */
  load(): Promise<void>;
}

export function assembleWorkspace(ctx: DurableObjectState, env: Env, hooks: WorkspaceHooks): Workspace {
  // The core calls into the features only from closures, once both are made.
  const core = assembleCore(ctx, env, hooks, () => features);
  const features = assembleFeatures(ctx, env, hooks, core);
  const { record, lifecycle, sandbox, backupStore } = core;
  const { network, github, members, watcher } = features;
  return {
    ...core,
    ...features,
    env,
    identity: () => ownerIdentity(record.owner ?? ""),
    gitCredentials: async () => ({
      hosts: gitCredentials(await network.secretInfos()),
      githubSignIn: github().available,
    }),
    get github() {
      return github();
    },
    backups: new BackupFlows({
      id: core.id,
      backups: backupStore,
      lifecycle,
      sandbox,
      watcher,
      name: () => record.name(),
    }),
    load: async () => {
      await record.load();
      await members.load();
      await network.load();
      await lifecycle.load();
      // A restarted Durable Object starts without an inactivity timeout even
      // when its container kept running, and a deploy may have cut its start
      // short before the intercepts were registered: registering again replaces them.
      if (lifecycle.isRunning) {
        await sandbox.setInactivityTimeout(platformTimeoutMs(await hooks.settings()));
        if (network.intercepting) await sandbox.interceptOutbound(core.outbound());
      }
    },
  };
}

type Core = ReturnType<typeof assembleCore>;
type Features = ReturnType<typeof assembleFeatures>;

/** The container and what keeps the workspace's state: its lifecycle, record, backups and save journal. */
function assembleCore(ctx: DurableObjectState, env: Env, hooks: WorkspaceHooks, features: () => Features) {
  const id = ctx.id.name ?? "";
  const tag = `workspace ${ctx.id.toString().slice(0, 8)}`;
  const storage = ctx.storage;
  const alarms = new AlarmScheduler(storage);
  const spare = new Spare(storage, alarms);
  const sockets = new SessionSockets();
  const sandbox: ContainerSandbox = new ContainerSandbox(ctx, () => lifecycle.ensureRunning());
  const backupStore = new WorkspaceBackups({
    bucket: () => hooks.backupBucket(),
    storage,
    sandbox,
    quick: sandbox.quick,
    prefix: `workspaces/${ctx.id.toString()}/`,
    image: async () => (await storage.get<string>("lifecycle:image")) || hooks.image(),
    tag,
    archiveRoute: () => hooks.routeArchives(),
  });
  const outbound = (): Fetcher => {
    const exports = ctx.exports as unknown as { Outbound(options: { props: OutboundProps }): Fetcher };
    return exports.Outbound({ props: { workspace: ctx.id.toString(), version: features().network.version } });
  };
  const containerSetup = (): ContainerSetupDeps => ({
    tag: `workspace ${id}`,
    storage,
    sandbox,
    previews: features().previews,
    scm: features().scm,
    intercepting: () => features().network.intercepting,
    owner: () => record.owner,
  });
  const journal: SaveJournal = new SaveJournal({
    bucket: () => hooks.journalBucket(),
    storage,
    prefix: `journal/${ctx.id.toString()}/`,
    tag,
    // Past its bounds the journal is emptied by a checkpoint rather than grown.
    onFull: () => void lifecycle.exclusive(() => lifecycle.snapshot()).catch(() => {}),
  });
  const lifecycle: Lifecycle = new Lifecycle({
    storage,
    sandbox,
    alarms,
    settings: () => hooks.settings(),
    startOptions: () => {
      const { enableInternet, intercept } = features().network.startWith();
      return {
        image: hooks.image(),
        enableInternet,
        instance: record.machine(),
        ...(intercept ? { outbound: outbound() } : {}),
        ...hooks.containerEnv(),
      };
    },
    // Its python starts while the start's `uname` runs; a failed attempt's is started again by afterLaunch.
    onLaunch: () => sandbox.startAgent(),
    afterLaunch: () => afterLaunch(containerSetup()),
    afterStart: (from) => afterStart(containerSetup(), from),
    backups: backupStore,
    journal: {
      replay: (since) => features().files.replayJournal(since),
      dropThrough: async (savedAt) => {
        await journal.dropThrough(savedAt);
        // The next pass of what programs wrote starts where this snapshot began.
        await features().outsideWrites.snapshotTaken();
      },
    },
    hibernatedSockets: () => ctx.getWebSockets().length,
    disposable: () => spare.held,
    tag: `container ${ctx.id.toString().slice(0, 8)}`,
  });
  const record: WorkspaceRecord = new WorkspaceRecord({
    id,
    env,
    storage,
    spare,
    lifecycle,
    network: { initialize: () => features().network.initialize() },
    members: { renamed: () => features().members.renamed() },
    containerSetup,
    teardown: async () => {
      const { members, agents, agentChats, languageServers, previews } = features();
      await members.forgetAll();
      agents.endAll();
      agentChats.stopAll();
      await languageServers.dispose();
      await sandbox.announceDeletion();
      await lifecycle.retire();
      try {
        await backupStore.deleteAll();
        await journal.deleteAll();
      } catch (error) {
        // Before the storage goes: the workspace stays listed, so deleting it again finishes the job.
        throw new AppError(
          ErrorCode.BACKUP_UNAVAILABLE,
          `The workspace's backups in R2 could not be deleted (${describe(error)}). It is stopped and still listed; delete it again.`,
        );
      }
      await storage.deleteAlarm();
      await storage.deleteAll();
      previews.forget();
    },
  });
  alarms.register(SPARE_TASK, () => record.expireSpare((task, at) => alarms.schedule(task, at)));
  return { id, alarms, spare, sockets, sandbox, backupStore, journal, lifecycle, record, outbound };
}

/** Each feature's part, given the core. */
function assembleFeatures(ctx: DurableObjectState, env: Env, hooks: WorkspaceHooks, core: Core) {
  const { id, alarms, spare, sockets, sandbox, journal, lifecycle, record } = core;
  const storage = ctx.storage;
  const members: WorkspaceMembers = new WorkspaceMembers({
    storage,
    env,
    sockets,
    workspace: () => ({ id, owner: record.owner, name: () => record.name() }),
  });
  const files = new JournaledFiles(sandbox, { confineTo: WORKSPACE_ROOT, agent: sandbox.agent }, journal);
  const watcher = new FileWatcher(sandbox, lifecycle, WORKSPACE_ROOT, sandbox.agent);
  // What programs write under /workspace reaches the journal within one pass (30 s), not the next checkpoint.
  const outsideWrites = new OutsideWrites({
    sandbox,
    files,
    journal,
    isRunning: () => lifecycle.isRunning && !spare.held,
    shared: (operation) => lifecycle.shared(operation),
    checkpoint: async () => void (await lifecycle.exclusive(() => lifecycle.snapshot())),
    tag: `workspace ${ctx.id.toString().slice(0, 8)}`,
  });
  watcher.listen(outsideWrites);
  runPasses(outsideWrites, {
    alarms,
    lifecycle,
    interval: async () => (await hooks.settings()).outsideWritesMs,
  });
  const languageServers = new LanguageServers({ sandbox, watcher });
  const search = new WorkspaceSearch(sandbox);
  const collab = new WorkspaceCollab({
    storage,
    files,
    watcher,
    shared: (operation) => lifecycle.shared(operation),
    wake: () => sandbox.wake(),
  });
  // Short git commands (status, diff, commit) through the resident agent: no process start for each.
  const git = new GitCli({ run: sandbox.quick.run, spawn: (argv, options) => sandbox.spawn(argv, options) });
  const scm = new SourceControl(git, files);
  const agentTools = (origin: URL) => ({
    files: new WorkspaceFiles(files, (operation) => lifecycle.shared(operation)),
    search,
    git,
    scm,
    sandbox,
    previews: () => previews.ownerLinks(id, origin),
  });
  const agents = new AgentGateway({
    storage,
    workspaceId: () => id,
    touch: () => lifecycle.activity.touch(),
    tools: agentTools,
  });
  const agentChats = new AgentChats({ storage, env, tools: agentTools, record: (entry) => agents.record(entry) });
  const previews: WorkspacePreviews = new WorkspacePreviews({
    storage,
    sandbox,
    scheduleSweep: (at) => (at === undefined ? alarms.cancel(SWEEP_TASK) : alarms.schedule(SWEEP_TASK, at)),
    previewDomain: env.PREVIEW_DOMAIN,
    hasContainer: () => lifecycle.hasContainer,
    connections: { begin: () => lifecycle.activity.begin(), end: () => lifecycle.activity.end() },
  });
  alarms.register(SWEEP_TASK, () => previews.sweep());
  const ssh = new SshServer({
    sandbox,
    storage,
    authorizedKeys: () => authorizedKeys(env, record.owner, members.roles()),
  });
  const network: WorkspaceNetwork = new WorkspaceNetwork({
    storage,
    hasContainer: () => lifecycle.hasContainer,
    openAvailable: env.SANDBOX_INTERNET !== "false",
    restart: () => lifecycle.restart(),
    workspaceId: () => ctx.id.name,
    changed: async () => {
      if (!network.intercepting) return;
      try {
        await sandbox.interceptOutbound(core.outbound());
      } catch (error) {
        // Gone meanwhile: the next start registers the new rules anyway.
        if (!lifecycle.hasContainer) return;
        throw new AppError(
          ErrorCode.CONTAINER_UNAVAILABLE,
          `The change is saved, but the running container could not be given it (${describe(error)}); it keeps the previous rules until it restarts. Save and sleep, then wake it, to apply it now.`,
        );
      }
    },
  });
  // GitHub's device sign-in; its token becomes github.com's. Made on first use: a test subclass's
  // hooks answer only once its constructor ran.
  let githubFlow: GitHubDeviceFlow | undefined;
  const github = () =>
    (githubFlow ??= new GitHubDeviceFlow(
      hooks.githubClientId(),
      (request) => hooks.githubFetch(request),
      async (token) => {
        await network.putSecret(gitSecretName("github.com"), gitSecret("github.com", token), MAX_SECRETS);
      },
    ));
  return {
    members,
    files,
    outsideWrites,
    watcher,
    languageServers,
    search,
    collab,
    git,
    scm,
    agents,
    agentChats,
    previews,
    ssh,
    network,
    github,
  };
}
