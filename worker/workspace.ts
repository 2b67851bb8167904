import { DurableObject } from "cloudflare:workers";
import { ErrorCode } from "../protocol/errors";
import type { InviteInfo, MemberRole } from "../protocol/members";
import type { EgressLogEntry } from "../protocol/network";
import type { Role } from "../protocol/roles";
import { DEFAULT_TEMPLATE, type WorkspaceTemplate } from "../protocol/workspaces";
import { refuseUnknownWorkspace } from "./agents/agent-gateway";
import { type DoorDeps, dispatch } from "./door/dispatch";
import { entranceOf } from "./door/entrances";
import { roleOf } from "./door/members";
import { AppError, type RpcResult, settle } from "./errors";
import type { RepositorySource } from "./git/clone";
import { type LifecycleSettings, lifecycleSettings } from "./lifecycle/settings";
import { noSuchWorkspace } from "./lifecycle/workspace-record";
import type { Joiner } from "./members/workspace-members";
import type { EgressRules } from "./network/egress-rules";
import { previewNotFound } from "./previews/pages";
import type { UploadOutcome } from "./sandbox/archive-transfers";
import { assembleWorkspace, type Workspace as Parts } from "./workspace-assembly";
import type { WorkspaceParts } from "./workspace-parts";
import { WORKSPACE_ROUTES } from "./workspace-routes";

/**
 * One workspace: a Durable Object that owns one container (through the
 * sandbox adapter, worker/sandbox/). Its parts, one per feature, are made in
 * workspace-assembly.ts. Every request reaches it through fetch(), by one of
 * three entrances (worker/door/entrances.ts): a member's goes through the
 * door (worker/door/), which serves the routes its features declare
 * (worker/workspace-routes.ts) to callers with the role each needs. Its RPC
 * methods are the internal ones only (made by the Directory's owner, the end
 * of sessions, the invite routes, the ArchiveGateway and Outbound entrypoints).
 */
export class Workspace extends DurableObject<Env> {
  /** Every part of the workspace (a test subclass reaches them here). */
  protected readonly parts: Parts;
  /** The door's view of this object (see fetch()). */
  private readonly door: DoorDeps<WorkspaceParts>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.parts = assembleWorkspace(ctx, env, {
      settings: () => this.settings(),
      journalBucket: () => this.journalBucket(),
      backupBucket: () => this.backupBucket(),
      routeArchives: () => this.routeArchives(),
      image: () => this.image(),
      containerEnv: () => this.containerEnv(),
      githubClientId: () => this.githubClientId(),
      githubFetch: (request) => this.githubFetch(request),
    });
    const { lifecycle, spare, sockets } = this.parts;
    this.door = {
      routes: WORKSPACE_ROUTES,
      roleOf: (caller) => this.roleOf(caller),
      parts: () => this.parts,
      sockets,
      isSpare: () => spare.held,
      awake: () => lifecycle.hasContainer,
      touch: () => lifecycle.activity.touch(),
    };
    void ctx.blockConcurrencyWhile(() => this.parts.load());
  }

  /** Throws NOT_FOUND (never "forbidden": that would say it exists) unless the caller owns this workspace. */
  protected authorize(caller: string): void {
    const owner = this.parts.record.owner;
    if (!owner || owner !== caller) throw noSuchWorkspace();
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

  /** A new workspace of `caller`'s, or their spare made one (worker/lifecycle/workspace-record.ts). */
  create(
    caller: string,
    name: string,
    template: WorkspaceTemplate = DEFAULT_TEMPLATE,
    repository?: RepositorySource,
  ): Promise<RpcResult<void>> {
    return settle(() => this.parts.record.create(caller, name, template, repository));
  }

  /** Makes this a spare for `caller`'s next new workspace, and starts its container. */
  prepareSpare(caller: string, expiresAt: number): Promise<RpcResult<void>> {
    return settle(() => this.parts.record.prepareSpare(caller, expiresAt));
  }

  /** The caller's role here: owner, a member's role, or none (worker/door/members.ts). */
  protected roleOf(caller: string): Role | undefined {
    return roleOf(caller, this.parts.record.owner, this.parts.members.roles());
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
    return this.parts.sandbox.routeArchives();
  }

  /** More of the container's environment: none in production (the test Worker's small disk). */
  protected containerEnv(): { env?: Record<string, string> } {
    return {};
  }

  /** The image a new container starts from (a test subclass may name one that cannot start). */
  protected image(): string {
    return this.parts.sandbox.image;
  }

  /** The OAuth app's client id for GitHub sign-in; none turns it off. */
  protected githubClientId(): string | undefined {
    return this.env.GITHUB_OAUTH_CLIENT_ID || undefined;
  }

  /** Sends a request to GitHub (a test subclass answers it itself). */
  protected githubFetch(request: Request): Promise<Response> {
    return fetch(request);
  }

  override async alarm(): Promise<void> {
    await this.parts.alarms.run();
  }

  /**
   * Every request: the Worker marked the entrance it came by (worker/door/entrances.ts).
   * A preview's token and an agent's bearer token are their own permission; a
   * member's request goes through the door (worker/door/dispatch.ts).
   */
  override async fetch(request: Request): Promise<Response> {
    const entrance = entranceOf(request);
    const { record, previews, agents } = this.parts;
    switch (entrance.kind) {
      // A workspace nobody created has no grants and takes no agent token.
      case "preview":
        return record.owner ? previews.fetch(request, entrance) : previewNotFound();
      case "agent":
        return record.owner ? agents.serve(request) : refuseUnknownWorkspace(request);
      case "member":
        return dispatch(request, entrance, this.door);
    }
  }

  /** Closes the sockets opened with these sessions of the caller, a member or the owner (all when null): they ended. */
  endSessions(caller: string, sessionIds: string[] | null): Promise<RpcResult<number>> {
    return settle(() => {
      if (!this.roleOf(caller)) throw noSuchWorkspace();
      const { sockets } = this.parts;
      return sessionIds
        ? sockets.close(sessionIds, "You were signed out.")
        : sockets.closeUser(caller, "You were signed out.");
    });
  }

  /**
   * For the Worker's invite routes (no session needed; the token is the
   * permission): what an invite link is for, if it may still admit someone.
   */
  checkInvite(token: string): Promise<RpcResult<InviteInfo>> {
    return settle(() => {
      if (!this.parts.record.owner) throw inviteUnusable();
      return this.parts.members.checkInvite(token);
    });
  }

  /**
   * Admits `joiner` by an invite link (counting a use) and answers their
   * role. `mayJoin` false: only the owner may pass (a password session of
   * another owner is not made a member of someone else's workspace).
   */
  redeemInvite(token: string, joiner: Joiner, mayJoin: boolean): Promise<RpcResult<MemberRole | "owner">> {
    return settle(async () => {
      const { record, members } = this.parts;
      if (!record.owner) throw inviteUnusable();
      await members.checkInvite(token);
      if (!mayJoin && joiner.id !== record.owner) {
        throw new AppError(
          ErrorCode.INVALID_STATE,
          "You are signed in with the owner's password: open the invite link in a private window to join as a guest.",
        );
      }
      return members.redeem(token, joiner);
    });
  }

  /** Ends every preview grant of this workspace (its owner signed out everywhere). */
  revokeAllGrants(caller: string): Promise<RpcResult<number>> {
    return this.call(caller, () => this.parts.previews.revokeAll());
  }

  /** The ArchiveGateway's PUT: a backup's archive from the container (archive-transfers.ts; the token is its permission). */
  archiveReceive(token: string, body: ReadableStream<Uint8Array>): Promise<UploadOutcome> {
    return this.parts.backupStore.transfers.receive(token, body);
  }

  /** The ArchiveGateway's GET: a restore's archive for the container; null for an unknown or used token. */
  archiveSend(token: string): ReadableStream<Uint8Array> | null {
    return this.parts.backupStore.transfers.send(token) ?? null;
  }

  /**
   * For the Outbound entrypoint only (no caller: it runs for this object's
   * own container, named in its props): the rules in force, secrets included.
   */
  egressRules(): EgressRules {
    return this.parts.network.rules();
  }

  /** For the Outbound entrypoint only: one request it decided, for the log. */
  egressRecord(entry: Omit<EgressLogEntry, "id">): void {
    this.parts.network.record(entry);
  }
}

function inviteUnusable(): AppError {
  return new AppError(ErrorCode.INVITE_UNUSABLE, "This invite link's workspace no longer exists.");
}
