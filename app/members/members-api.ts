import type {
  CreatedInvite,
  CreateInviteRequest,
  InviteAccepted,
  InviteAcceptRequest,
  InviteInfo,
  InviteList,
  Member,
  MemberList,
  MemberRole,
  WorkspaceAccess,
} from "../../protocol/members";
import { apiJson, jsonBody, workspacePath } from "../api/http";

/** A workspace's members and invite links (worker/members/member-routes.ts); the owner's, but for `access`. */
export class MembersApi {
  constructor(readonly workspaceId: string) {}

  /** The caller's own role here. */
  access(): Promise<WorkspaceAccess> {
    return apiJson(workspacePath(this.workspaceId, "/me"));
  }

  async list(): Promise<Member[]> {
    return (await apiJson<MemberList>(workspacePath(this.workspaceId, "/members"))).members;
  }

  setRole(memberId: string, role: MemberRole): Promise<Member> {
    return apiJson(
      workspacePath(this.workspaceId, `/members/${encodeURIComponent(memberId)}`),
      jsonBody("PUT", { role }),
    );
  }

  remove(memberId: string): Promise<void> {
    return apiJson(workspacePath(this.workspaceId, `/members/${encodeURIComponent(memberId)}`), { method: "DELETE" });
  }

  async invites(): Promise<InviteList["invites"]> {
    return (await apiJson<InviteList>(workspacePath(this.workspaceId, "/invites"))).invites;
  }

  createInvite(request: CreateInviteRequest): Promise<CreatedInvite> {
    return apiJson(workspacePath(this.workspaceId, "/invites"), jsonBody("POST", request));
  }

  revokeInvite(inviteId: string): Promise<void> {
    return apiJson(workspacePath(this.workspaceId, `/invites/${encodeURIComponent(inviteId)}`), { method: "DELETE" });
  }
}

/** Opening an invite link (worker/routes/invites.ts): no session needed. */
export const invitesApi = {
  check: (workspace: string, token: string) =>
    apiJson<InviteInfo>("/api/invites/check", jsonBody("POST", { workspace, token })),
  accept: (workspace: string, token: string, name: string) =>
    apiJson<InviteAccepted>(
      "/api/invites/accept",
      jsonBody("POST", { workspace, token, name } satisfies InviteAcceptRequest),
    ),
};
