import { ErrorCode } from "../../protocol/errors";
import type {
  GitBranch,
  GitCheckoutRequest,
  GitCommit,
  GitCommitRequest,
  GitCommitResult,
  GitCreateBranchRequest,
  GitCredentials,
  GitDiff,
  GitHubDeviceCode,
  GitHubSignIn,
  GitPathsRequest,
  GitStatus,
  GitSyncEvent,
  GitSyncRequest,
  GitTokenRequest,
} from "../../protocol/git";
import { ApiRequestError, apiFetch, apiJson, ClientErrorCode, jsonBody, workspacePath } from "./http";

export type SyncKind = "pull" | "push" | "fetch";

/** The browser side of `/api/workspaces/{id}/git/...` (worker/git/git-routes.ts). */
export class GitApi {
  constructor(readonly workspaceId: string) {}

  private url(suffix: string): string {
    return workspacePath(this.workspaceId, `/git${suffix}`);
  }

  /**
   * `wake: false` for the refreshes the page makes by itself: a GET never
   * wakes a workspace (409 WORKSPACE_ASLEEP); with `wake` the page wakes it
   * (`POST .../wake`) and reads again.
   */
  status({ wake = true } = {}): Promise<GitStatus> {
    const read = () => apiJson<GitStatus>(this.url("/status"));
    return wake ? this.awake(read) : read();
  }

  init(): Promise<GitStatus> {
    return apiJson(this.url("/init"), { method: "POST" });
  }

  diff(path: string, staged: boolean): Promise<GitDiff> {
    const query = new URLSearchParams({ path, staged: staged ? "1" : "0" });
    return this.awake(() => apiJson(this.url(`/diff?${query}`)));
  }

  stage(paths: readonly string[]): Promise<GitStatus> {
    return apiJson(this.url("/stage"), jsonBody("POST", { paths } satisfies GitPathsRequest));
  }

  unstage(paths: readonly string[]): Promise<GitStatus> {
    return apiJson(this.url("/unstage"), jsonBody("POST", { paths } satisfies GitPathsRequest));
  }

  discard(paths: readonly string[]): Promise<GitStatus> {
    return apiJson(this.url("/discard"), jsonBody("POST", { paths } satisfies GitPathsRequest));
  }

  commit(message: string, amend: boolean): Promise<GitCommitResult> {
    return apiJson(this.url("/commit"), jsonBody("POST", { message, amend } satisfies GitCommitRequest));
  }

  async branches({ wake = true } = {}): Promise<GitBranch[]> {
    const read = () => apiJson<{ branches: GitBranch[] }>(this.url("/branches"));
    return (await (wake ? this.awake(read) : read())).branches;
  }

  async createBranch(name: string): Promise<GitBranch[]> {
    return (
      await apiJson<{ branches: GitBranch[] }>(
        this.url("/branches"),
        jsonBody("POST", { name } satisfies GitCreateBranchRequest),
      )
    ).branches;
  }

  checkout(branch: string): Promise<GitStatus> {
    return apiJson(this.url("/checkout"), jsonBody("POST", { branch } satisfies GitCheckoutRequest));
  }

  async log(limit: number, { wake = true } = {}): Promise<GitCommit[]> {
    const read = () => apiJson<{ commits: GitCommit[] }>(this.url(`/log?limit=${limit}`));
    return (await (wake ? this.awake(read) : read())).commits;
  }

  /** The git hosts that have a token (kept by the IDE as network secrets), never the tokens. */
  credentials(): Promise<GitCredentials> {
    return apiJson(this.url("/credentials"));
  }

  setToken(host: string, token: string): Promise<GitCredentials> {
    return apiJson(this.url("/credentials"), jsonBody("PUT", { host, token } satisfies GitTokenRequest));
  }

  async removeToken(host: string): Promise<void> {
    await apiFetch(this.url(`/credentials?host=${encodeURIComponent(host)}`), { method: "DELETE" });
  }

  startGitHubSignIn(): Promise<GitHubDeviceCode> {
    return apiJson(this.url("/credentials/github"), { method: "POST" });
  }

  pollGitHubSignIn(): Promise<GitHubSignIn> {
    return apiJson(this.url("/credentials/github/poll"), { method: "POST" });
  }

  /** A read the person asked for: one that finds the workspace asleep wakes it and reads again (as files.ts does). */
  private async awake<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof ApiRequestError) || error.code !== ErrorCode.WORKSPACE_ASLEEP) throw error;
      await apiJson(workspacePath(this.workspaceId, "/wake"), { method: "POST", idempotent: true });
      return read();
    }
  }

  /**
   * Runs a pull, push or fetch, calling `onEvent` for each line git prints
   * as it arrives; resolves when git succeeded, throws git's own message when
   * it failed.
   */
  async sync(kind: SyncKind, onEvent: (event: GitSyncEvent) => void, signal?: AbortSignal): Promise<void> {
    const response = await apiFetch(this.url(`/${kind}`), { ...jsonBody("POST", {} satisfies GitSyncRequest), signal });
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (!reader) throw new ApiRequestError(0, ClientErrorCode.NETWORK, "The server sent no progress.");
    let buffer = "";
    let last: GitSyncEvent | undefined;
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) break;
      buffer += value;
      let newline = buffer.indexOf("\n");
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim()) {
          last = JSON.parse(line) as GitSyncEvent;
          onEvent(last);
        }
        newline = buffer.indexOf("\n");
      }
    }
    if (last?.type === "error") throw new ApiRequestError(409, last.code, last.message);
    if (last?.type !== "done") {
      throw new ApiRequestError(
        0,
        ClientErrorCode.NETWORK,
        `The connection dropped before git's ${kind} finished. It goes on in the workspace; the panel shows the repository as it ends up.`,
      );
    }
  }
}
