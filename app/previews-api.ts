import type { DevServerState, PreviewAccess, PreviewsOverview, ShareLink } from "../protocol/previews";
import { apiJson } from "./api";

const base = (workspaceId: string) => `/api/workspaces/${workspaceId}/previews`;

export const previewsApi = {
  overview: (workspaceId: string) => apiJson<PreviewsOverview>(base(workspaceId)),
  open: (workspaceId: string, port: number) =>
    apiJson<PreviewAccess>(`${base(workspaceId)}/${port}`, { method: "POST" }),
  runDevServer: (workspaceId: string) => apiJson<DevServerState>(`${base(workspaceId)}/dev-server`, { method: "POST" }),
  stopDevServer: (workspaceId: string) => apiJson<void>(`${base(workspaceId)}/dev-server`, { method: "DELETE" }),
  shares: (workspaceId: string, port: number) =>
    apiJson<{ shares: ShareLink[] }>(`${base(workspaceId)}/${port}/shares`).then((r) => r.shares),
  share: (workspaceId: string, port: number, ttlSeconds: number) =>
    apiJson<ShareLink>(`${base(workspaceId)}/${port}/shares`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ttlSeconds }),
    }),
  revoke: (workspaceId: string, port: number, shareId: string) =>
    apiJson<void>(`${base(workspaceId)}/${port}/shares/${shareId}`, { method: "DELETE" }),
};
