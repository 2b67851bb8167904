/**
 * What a route's handler may use: the Workspace's parts, one per feature,
 * and the few operations on the workspace's own record. The Workspace
 * Durable Object makes them; a handler never sees the object itself. The
 * door (worker/door/) is generic over them, so it imports no feature; the
 * features declare their routes with this file's defineRoute.
 */
import type { BackupList, BackupRecord, RestoreResult } from "../protocol/backups";
import type { GitCredentials } from "../protocol/git";
import type { WorkspaceStatus } from "../protocol/workspace";
import type { AgentChats } from "./agents/agent-chats";
import type { AgentGateway } from "./agents/agent-gateway";
import type { WorkspaceBackups } from "./backups/workspace-backups";
import type { WorkspaceCollab } from "./collab/workspace-collab";
import { type Call, type Route, routeDefiner } from "./door/route";
import type { FileWatcher } from "./files/file-watcher";
import type { Files } from "./files/sandbox-files";
import type { GitCli } from "./git/git-cli";
import type { GitHubDeviceFlow } from "./git/github-device-flow";
import type { SourceControl } from "./git/source-control";
import type { Lifecycle } from "./lifecycle/lifecycle";
import type { WorkspaceRecord } from "./lifecycle/workspace-record";
import type { LanguageServers } from "./lsp/language-servers";
import type { WorkspaceMembers } from "./members/workspace-members";
import type { WorkspaceNetwork } from "./network/workspace-network";
import type { WorkspacePreviews } from "./previews/workspace-previews";
import type { ContainerSandbox } from "./sandbox/sandbox";
import type { WorkspaceSearch } from "./search/workspace-search";
import type { SessionSockets } from "./session-sockets";
import type { SshServer } from "./ssh/ssh-server";

export interface WorkspaceParts {
  /** The workspace's id (its Durable Object's name). */
  id: string;
  env: Env;
  sandbox: ContainerSandbox;
  lifecycle: Lifecycle;
  files: Files;
  watcher: FileWatcher;
  search: WorkspaceSearch;
  git: GitCli;
  scm: SourceControl;
  github: GitHubDeviceFlow;
  previews: WorkspacePreviews;
  network: WorkspaceNetwork;
  languageServers: LanguageServers;
  /** Members and invite links (worker/members/). */
  members: WorkspaceMembers;
  /** Shared documents of open files and the presence room (worker/collab/). */
  collab: WorkspaceCollab;
  /** The workspace's sshd, started when a tunnel opens (worker/ssh/). */
  ssh: SshServer;
  /** Open sockets by the session that opened them: ending a session closes them. */
  sockets: SessionSockets;
  /** Agent tokens, the MCP endpoint and the agents' activity log (worker/agents/). */
  agents: AgentGateway;
  /** The agent panel's conversations, each person's own (worker/agents/agent-chats.ts). */
  agentChats: AgentChats;
  /** The owner's name and email, for git commits when git has none configured. */
  identity(): { name: string; email: string };
  /** The workspace's own record: owner, name, machine size, deletion (worker/lifecycle/workspace-record.ts). */
  record: WorkspaceRecord;
  /** The hosts with a git token (never their values), and whether GitHub's sign-in is offered. */
  gitCredentials(): Promise<GitCredentials>;
  /** The workspace's backups in R2 (worker/backups/). */
  backups: {
    health: WorkspaceBackups["health"];
    list(): Promise<BackupList>;
    /** A backup now (waking the workspace). */
    create(): Promise<BackupRecord>;
    /** Backs up the files as they are (the undo), then restores this backup. */
    restore(id: string): Promise<RestoreResult>;
    /** "Move to the current image": back up, stop, start on the current image with those files. */
    upgrade(): Promise<WorkspaceStatus>;
    delete(id: string): Promise<void>;
    pin(id: string, pinned: boolean): Promise<BackupRecord>;
    /** As stored (`zst`), or as `.tar.gz` made in the running container. */
    download(id: string, format: "gz" | "zst"): Promise<Response>;
  };
}

/** A workspace route: its handler gets the workspace's parts. */
export type WorkspaceRoute = Route<WorkspaceParts>;

/** What a workspace route's handler gets. */
export type WorkspaceCall<P, Q, B> = Call<P, Q, B, WorkspaceParts>;

/** Declares a workspace route; the types of its handler's inputs come from its schemas. */
export const defineRoute = routeDefiner<WorkspaceParts>();
