import type {
  AddSshKeyRequest,
  CreatedToken,
  CreateTokenRequest,
  DeviceApproveRequest,
  SshKeySummary,
  TokenSummary,
} from "../../protocol/access";
import { apiJson, jsonBody } from "./http";

/** Personal access tokens, SSH keys and the device login's approval (worker/routes/access.ts). */
export const accessApi = {
  tokens: () => apiJson<TokenSummary[]>("/api/tokens"),
  createToken: (request: CreateTokenRequest) => apiJson<CreatedToken>("/api/tokens", jsonBody("POST", request)),
  revokeToken: (id: string) => apiJson<void>(`/api/tokens/${encodeURIComponent(id)}`, { method: "DELETE" }),
  keys: () => apiJson<SshKeySummary[]>("/api/ssh-keys"),
  addKey: (request: AddSshKeyRequest) => apiJson<SshKeySummary>("/api/ssh-keys", jsonBody("POST", request)),
  removeKey: (id: string) => apiJson<void>(`/api/ssh-keys/${encodeURIComponent(id)}`, { method: "DELETE" }),
  approveDevice: (userCode: string) =>
    apiJson<void>("/api/device/approve", jsonBody("POST", { userCode } satisfies DeviceApproveRequest)),
};
