import type {
  EgressLog,
  NetworkPolicy,
  NetworkSettings,
  NetworkUpdate,
  SecretInfo,
  SecretInput,
} from "../../protocol/network";
import { apiJson, jsonBody, workspacePath } from "./http";

/**
 * The browser side of `/api/workspaces/{id}/network...` (worker/network/network-routes.ts):
 * the policy, write-only secrets, and the request log. For a git host's
 * token: `putSecret("github", { hosts: ["github.com"], value: basicAuthorization("x-access-token", token) })`
 * (`basicAuthorization` is in protocol/network.ts).
 */
export class NetworkApi {
  constructor(readonly workspaceId: string) {}

  private path(suffix = ""): string {
    return workspacePath(this.workspaceId, `/network${suffix}`);
  }

  get(): Promise<NetworkSettings> {
    return apiJson(this.path());
  }

  /** A change to or from `open` on a running container fails with RESTART_REQUIRED unless `restart`. */
  update(policy: NetworkPolicy, { restart = false } = {}): Promise<NetworkSettings> {
    return apiJson(this.path(), jsonBody("PUT", { ...policy, restart } satisfies NetworkUpdate));
  }

  /** Log entries newer than `after`. */
  log(after = 0): Promise<EgressLog> {
    return apiJson(this.path(`/log?after=${after}`));
  }

  async secrets(): Promise<SecretInfo[]> {
    return (await apiJson<{ secrets: SecretInfo[] }>(this.path("/secrets"))).secrets;
  }

  /** Creates or replaces a secret; its value is never readable again. */
  putSecret(name: string, secret: SecretInput): Promise<SecretInfo> {
    return apiJson(this.path(`/secrets/${encodeURIComponent(name)}`), jsonBody("PUT", secret));
  }

  deleteSecret(name: string): Promise<void> {
    return apiJson(this.path(`/secrets/${encodeURIComponent(name)}`), { method: "DELETE" });
  }
}
