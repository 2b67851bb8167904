/**
 * A workspace's own record: its owner, name and machine size, and its life
 * from creation (or as a spare started ahead of it, spare.ts) to deletion.
 * The Workspace Durable Object keeps one; its RPC methods and the lifecycle
 * routes use it.
 */
import type { Machine, WorkspaceSettings } from "../../protocol/workspace";
import { DEFAULT_TEMPLATE, type WorkspaceSummary, type WorkspaceTemplate } from "../../protocol/workspaces";
import { userDirectory } from "../directory";
import { type AppError, describe, notFound } from "../errors";
import type { RepositorySource } from "../git/clone";
import type { WorkspaceMembers } from "../members/workspace-members";
import type { WorkspaceNetwork } from "../network/workspace-network";
import { type InstanceType, sandboxInstanceType } from "../sandbox/instance-type";
import { afterStart, type ContainerSetupDeps } from "./container-setup";
import type { Lifecycle } from "./lifecycle";
import { SPARE_TASK, type Spare } from "./spare";

/** Storage key of the chosen machine size. */
const MACHINE_KEY = "machine";

export interface WorkspaceRecordDeps {
  /** The workspace's id (its Durable Object's name). */
  id: string;
  env: Env;
  storage: DurableObjectStorage;
  spare: Spare;
  lifecycle: Pick<Lifecycle, "ensureRunning" | "whenAwake" | "activity" | "restart" | "reset" | "isRunning">;
  network: Pick<WorkspaceNetwork, "initialize">;
  members: Pick<WorkspaceMembers, "renamed">;
  /** What a claimed spare's first start does (container-setup.ts). */
  containerSetup(): ContainerSetupDeps;
  /** Ends every part's work and deletes all the workspace stored: its container, backups, journal, storage. */
  teardown(): Promise<void>;
}

export class WorkspaceRecord {
  private ownerId: string | undefined;
  /** The machine size the owner chose (`PUT .../settings`); unset: the deployment's. */
  private chosenMachine: Machine | undefined;

  constructor(private readonly deps: WorkspaceRecordDeps) {}

  async load(): Promise<void> {
    this.ownerId = await this.deps.storage.get<string>("owner");
    this.chosenMachine = await this.deps.storage.get<Machine>(MACHINE_KEY);
    await this.deps.spare.load();
  }

  /** The owner's user id; none for an object nobody created (or one deleted). */
  get owner(): string | undefined {
    return this.ownerId;
  }

  /**
   * Records the owner and name of a new workspace; one made from a
   * repository starts empty and clones it on its first start. A spare of the
   * caller's (prepareSpare) becomes this workspace, its container already
   * running: what the first start does for a new workspace is done now.
   */
  async create(
    caller: string,
    name: string,
    template: WorkspaceTemplate = DEFAULT_TEMPLATE,
    repository?: RepositorySource,
  ): Promise<void> {
    const { spare, storage } = this.deps;
    if (this.ownerId && this.ownerId !== caller) throw noSuchWorkspace();
    // An object being deleted (a discarded spare among them: destroy() ends it first) takes no
    // workspace: the caller makes a new one.
    if (spare.isDiscarded) throw spareGone();
    const claimed = await spare.claim();
    this.ownerId = caller;
    await storage.put({
      owner: caller,
      name,
      template: repository ? "empty" : template,
      createdAt: new Date().toISOString(),
      ...(repository ? { repository } : {}),
    });
    await this.deps.network.initialize();
    if (claimed) await this.claimed();
  }

  /**
   * Makes this a spare for `caller`'s next new workspace and starts its
   * container (not waited for: the page asked ahead, and create() waits for
   * the start it shares). It has their network defaults and no template yet,
   * and is discarded at `expiresAt` unless create() claims it first.
   */
  async prepareSpare(caller: string, expiresAt: number): Promise<void> {
    const { spare, storage } = this.deps;
    if (this.ownerId ? this.ownerId !== caller || !spare.held : spare.isDiscarded) throw spareGone();
    if (!this.ownerId) {
      this.ownerId = caller;
      await storage.put("owner", caller);
      await this.deps.network.initialize();
      await spare.hold(expiresAt);
    }
    // Its failure is the claim's to see (the workspace then starts when opened, as without a spare).
    this.deps.lifecycle.ensureRunning().catch((error) => console.warn(`spare ${this.deps.id}: ${describe(error)}`));
  }

  /** A claimed spare: once its start is over, what a new workspace's first start does (afterStart). */
  private async claimed(): Promise<void> {
    const { lifecycle } = this.deps;
    lifecycle.activity.touch();
    // A start still in progress reads the template itself; one that failed is the next wake's to try.
    const started = await lifecycle.whenAwake().then(
      () => true,
      () => false,
    );
    if (started) await afterStart(this.deps.containerSetup(), "template");
  }

  /** An unclaimed spare goes now, with its container, never saved: false when this is no unclaimed spare. */
  async discardSpare(): Promise<boolean> {
    if (!this.deps.spare.held) return false;
    await this.destroy();
    return true;
  }

  /** The spare's alarm task (SPARE_TASK): unclaimed when due, it is discarded. */
  async expireSpare(schedule: (task: string, at: number) => Promise<void>): Promise<void> {
    const { spare } = this.deps;
    const due = spare.dueAt;
    if (due === undefined) return;
    if (spare.isDue()) await this.discardSpare();
    else await schedule(SPARE_TASK, due);
  }

  /** The workspace's name, here and in its owner's list. */
  async rename(name: string): Promise<WorkspaceSummary> {
    await this.deps.storage.put("name", name);
    const renamed = this.ownerId
      ? await userDirectory(this.deps.env, this.ownerId).rename(this.deps.id, name)
      : undefined;
    if (!renamed) throw notFound("No such workspace.");
    await this.deps.members.renamed();
    return renamed;
  }

  /** The workspace's name as its owner gave it. */
  async name(): Promise<string> {
    return (await this.deps.storage.get<string>("name")) ?? "workspace";
  }

  /** Destroys the container and everything stored for this workspace, and takes it off its owner's list. */
  async destroy(): Promise<void> {
    const owner = this.ownerId;
    const wasSpare = this.deps.spare.end();
    await this.deps.teardown();
    this.ownerId = undefined;
    if (!owner) return;
    const directory = userDirectory(this.deps.env, owner);
    await (wasSpare ? directory.dropSpare(this.deps.id) : directory.remove(this.deps.id));
  }

  /** Start fresh after a snapshot failed to restore. */
  async reset(): Promise<void> {
    await this.deps.lifecycle.reset();
    // The next start is from the image: it gets the workspace's template again.
    await this.deps.storage.delete("seeded");
  }

  /** The machine size its containers start on: the owner's choice, else the deployment's. */
  machine(): InstanceType {
    return this.chosenMachine ?? sandboxInstanceType(this.deps.env.SANDBOX_INSTANCE_TYPE);
  }

  async settings(): Promise<WorkspaceSettings> {
    return { machine: this.machine() };
  }

  /** Keeps a new machine size; a running workspace restarts on it (save, stop, start: files kept). */
  async updateSettings(machine: Machine): Promise<WorkspaceSettings> {
    const changed = machine !== this.machine();
    this.chosenMachine = machine;
    await this.deps.storage.put(MACHINE_KEY, machine);
    if (changed && this.deps.lifecycle.isRunning) await this.deps.lifecycle.restart();
    return { machine };
  }
}

export function noSuchWorkspace(): AppError {
  return notFound("No such workspace.");
}

/** A spare that went (discarded, or deleted): the Worker then makes a new workspace instead. */
function spareGone(): AppError {
  return notFound("That spare workspace is gone.");
}
