import type { CreatedInvite, CreateInviteRequest, InviteSummary, Member, MemberRole } from "../../protocol/members";
import { errorMessage } from "../api/http";
import type { MembersApi } from "./members-api";

export interface MembersView {
  members?: Member[];
  invites?: InviteSummary[];
  /** The link just made: its url is shown this once. */
  created?: CreatedInvite;
  error?: string;
}

/** The Share panel's state: the workspace's members and live invite links, and the owner's actions on them. */
export class MembersModel {
  private view: MembersView = {};
  private readonly listeners = new Set<() => void>();

  constructor(private readonly api: MembersApi) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): MembersView => this.view;

  async refresh(): Promise<void> {
    try {
      const [members, invites] = await Promise.all([this.api.list(), this.api.invites()]);
      this.set({ members, invites, error: undefined });
    } catch (error) {
      this.set({ error: errorMessage(error) });
    }
  }

  async invite(request: CreateInviteRequest): Promise<void> {
    const created = await this.api.createInvite(request);
    this.set({ created });
    await this.refresh();
  }

  async revoke(inviteId: string): Promise<void> {
    await this.api.revokeInvite(inviteId);
    if (this.view.created?.id === inviteId) this.set({ created: undefined });
    await this.refresh();
  }

  async setRole(memberId: string, role: MemberRole): Promise<void> {
    await this.api.setRole(memberId, role);
    await this.refresh();
  }

  async remove(memberId: string): Promise<void> {
    await this.api.remove(memberId);
    await this.refresh();
  }

  private set(patch: Partial<MembersView>): void {
    this.view = { ...this.view, ...patch };
    for (const listener of this.listeners) listener();
  }
}
