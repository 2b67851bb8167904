import type { TerminalInfo } from "../../protocol/terminal";
import type {
  ImportResult,
  Machine,
  SaveResult,
  WorkspaceSettings,
  WorkspaceSettingsRequest,
  WorkspaceStatus,
} from "../../protocol/workspace";
import type {
  CreateWorkspaceRequest,
  SpareWorkspace,
  WorkspaceNameRequest,
  WorkspaceSummary,
  WorkspaceTemplate,
} from "../../protocol/workspaces";
import { AgentChatApi } from "./agent-chat";
import { AgentsApi } from "./agents";
import { BackupsApi } from "./backups";
import { FilesApi } from "./files";
import { GitApi } from "./git";
import { apiFetch, apiJson, jsonBody, socketUrl, workspacePath } from "./http";
import { NetworkApi } from "./network";
import { PreviewsApi } from "./previews";
import { SearchApi } from "./search";

/** The signed-in user's workspaces: `/api/workspaces` (worker/routes/workspaces.ts). */
export const workspacesApi = {
  list: () => apiJson<WorkspaceSummary[]>("/api/workspaces"),
  create: (name: string, template: WorkspaceTemplate, repository?: { url: string; branch?: string }, spare?: string) =>
    apiJson<WorkspaceSummary>(
      "/api/workspaces",
      jsonBody("POST", { name, template, repository, spare } satisfies CreateWorkspaceRequest),
    ),
  /** Starts the container of the next new workspace ahead (worker/lifecycle/spare.ts); undefined when spares are off. */
  prepareSpare: () => apiJson<SpareWorkspace | undefined>("/api/workspaces/spare", { method: "POST" }),
  rename: (id: string, name: string) =>
    apiJson<WorkspaceSummary>(workspacePath(id), jsonBody("PATCH", { name } satisfies WorkspaceNameRequest)),
  remove: (id: string) => apiJson<void>(workspacePath(id), { method: "DELETE" }),
};

/** Terminals of a workspace: `/api/workspaces/{id}/terminals` and the terminal WebSocket. */
export class TerminalsApi {
  constructor(readonly workspaceId: string) {}

  list(): Promise<TerminalInfo[]> {
    return apiJson(workspacePath(this.workspaceId, "/terminals"));
  }

  /** Ends a terminal's tmux session. */
  async remove(name: string): Promise<void> {
    await apiFetch(workspacePath(this.workspaceId, `/terminals/${encodeURIComponent(name)}`), { method: "DELETE" });
  }

  /** The terminal WebSocket's URL; `wake: false` for reconnects that must not wake a sleeping workspace. */
  socketUrl(name: string, size: { cols: number; rows: number } | undefined, wake: boolean): string {
    const url = socketUrl(`/ws/workspaces/${encodeURIComponent(this.workspaceId)}/terminals/${name}`);
    if (size) {
      url.searchParams.set("cols", String(size.cols));
      url.searchParams.set("rows", String(size.rows));
    }
    if (!wake) url.searchParams.set("wake", "0");
    return url.toString();
  }
}

/** Everything about one workspace: its state and lifecycle, files, previews, terminals and network. */
export class WorkspaceApi {
  readonly files: FilesApi;
  readonly git: GitApi;
  readonly previews: PreviewsApi;
  readonly terminals: TerminalsApi;
  readonly network: NetworkApi;
  readonly search: SearchApi;
  readonly backups: BackupsApi;
  readonly agents: AgentsApi;
  readonly agentChat: AgentChatApi;

  constructor(readonly id: string) {
    this.backups = new BackupsApi(id);
    this.agents = new AgentsApi(id);
    this.agentChat = new AgentChatApi(id);
    this.search = new SearchApi(id);
    this.files = new FilesApi(id);
    this.git = new GitApi(id);
    this.previews = new PreviewsApi(id);
    this.terminals = new TerminalsApi(id);
    this.network = new NetworkApi(id);
  }

  /**
   * `wake: true` starts or wakes the workspace (`POST .../wake`); `false` only
   * reports (`GET .../status`: every GET is read-only, and does not count as use).
   */
  status({ wake }: { wake: boolean }): Promise<WorkspaceStatus> {
    return wake
      ? apiJson(workspacePath(this.id, "/wake"), { method: "POST", idempotent: true })
      : apiJson(workspacePath(this.id, "/status"));
  }

  save(): Promise<SaveResult> {
    return apiJson(workspacePath(this.id, "/save"), { method: "POST" });
  }

  /** Saves, then stops the container. */
  stop(): Promise<SaveResult> {
    return apiJson(workspacePath(this.id, "/stop"), { method: "POST", idempotent: true });
  }

  /**
   * A new machine size; a running workspace restarts on it with its files. Idempotent (the same
   * size again changes nothing), so it is tried again when the container's start drops it in flight.
   */
  setMachine(machine: Machine): Promise<WorkspaceSettings> {
    return apiJson(workspacePath(this.id, "/settings"), {
      ...jsonBody("PUT", { machine } satisfies WorkspaceSettingsRequest),
      idempotent: true,
    });
  }

  /** After a failed restore: a new workspace from its template. */
  reset(): Promise<void> {
    return apiJson(workspacePath(this.id, "/reset"), { method: "POST" });
  }

  /** Replaces /workspace with a .tar.gz archive. */
  importArchive(file: Blob): Promise<ImportResult> {
    return apiJson(workspacePath(this.id, "/import?replace=true"), {
      method: "POST",
      headers: { "Content-Type": "application/gzip" },
      body: file,
    });
  }

  exportUrl(): string {
    return workspacePath(this.id, "/export");
  }
}
