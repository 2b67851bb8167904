/**
 * What a route's handler may use: the Workspace's parts, one per feature,
 * and the few operations on the workspace's own record. The Workspace
 * Durable Object makes them; a handler never sees the object itself.
 */
import type { BackupList, BackupRecord, RestoreResult } from "../../protocol/backups";
import type { GitCredentials } from "../../protocol/git";
import type { Machine, WorkspaceSettings, WorkspaceStatus } from "../../protocol/workspace";
import type { WorkspaceSummary } from "../../protocol/workspaces";
import type { AgentChats } from "../agents/agent-chats";
import type { AgentGateway } from "../agents/agent-gateway";
import type { WorkspaceBackups } from "../backups/workspace-backups";
import type { WorkspaceCollab } from "../collab/workspace-collab";
import type { FileWatcher } from "../files/file-watcher";
import type { Files } from "../files/sandbox-files";
import type { GitCli } from "../git/git-cli";
import type { GitHubDeviceFlow } from "../git/github-device-flow";
import type { SourceControl } from "../git/source-control";
import type { Lifecycle } from "../lifecycle/lifecycle";
import type { LanguageServers } from "../lsp/language-servers";
import type { WorkspaceMembers } from "../members/workspace-members";
import type { WorkspaceNetwork } from "../network/workspace-network";
import type { WorkspacePreviews } from "../previews/workspace-previews";
import type { ContainerSandbox } from "../sandbox/sandbox";
import type { WorkspaceSearch } from "../search/workspace-search";
import type { SessionSockets } from "../session-sockets";
import type { SshServer } from "../ssh/ssh-server";

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
  /** The workspace's own record. */
  record: {
    rename(name: string): Promise<WorkspaceSummary>;
    /** Destroys the container and everything stored for the workspace, and takes it off its owner's list. */
    destroy(): Promise<void>;
    /** Starts fresh after a snapshot failed to restore (the next start gets the template again). */
    reset(): Promise<void>;
    gitCredentials(): Promise<GitCredentials>;
    settings(): Promise<WorkspaceSettings>;
    /** A new machine size: kept; a running workspace restarts on it with its files. */
    updateSettings(machine: Machine): Promise<WorkspaceSettings>;
  };
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
