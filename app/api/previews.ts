import type {
  CreateShareRequest,
  DevServerState,
  GrantList,
  PreviewAccess,
  PreviewsOverview,
  ShareLink,
} from "../../protocol/previews";
import { apiJson, jsonBody, workspacePath } from "./http";

/** The browser side of `/api/workspaces/{id}/previews...` (worker/previews/preview-routes.ts). */
export class PreviewsApi {
  constructor(readonly workspaceId: string) {}

  private path(suffix = ""): string {
    return workspacePath(this.workspaceId, `/previews${suffix}`);
  }

  overview(): Promise<PreviewsOverview> {
    return apiJson(this.path());
  }

  /** The owner's own URL for a port: grant `id` renewed, or a new one (new URL) when it ended. */
  open(port: number, id?: string): Promise<PreviewAccess> {
    return apiJson(this.path(`/${port}${id ? `?grant=${encodeURIComponent(id)}` : ""}`), { method: "POST" });
  }

  runDevServer(): Promise<DevServerState> {
    return apiJson(this.path("/dev-server"), { method: "POST", idempotent: true });
  }

  stopDevServer(): Promise<void> {
    return apiJson(this.path("/dev-server"), { method: "DELETE", idempotent: true });
  }

  /** Live share links, and the owner's pane grants beside them. */
  grants(port: number): Promise<GrantList> {
    return apiJson<GrantList>(this.path(`/${port}/shares`));
  }

  share(port: number, ttlSeconds: number): Promise<ShareLink> {
    return apiJson(this.path(`/${port}/shares`), jsonBody("POST", { ttlSeconds } satisfies CreateShareRequest));
  }

  revoke(port: number, shareId: string): Promise<void> {
    return apiJson(this.path(`/${port}/shares/${encodeURIComponent(shareId)}`), { method: "DELETE" });
  }
}
