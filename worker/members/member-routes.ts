import { z } from "zod";
import { ErrorCode } from "../../protocol/errors";
import {
  type CreateInviteRequest,
  isMemberRole,
  MAX_INVITE_TTL_SECONDS,
  MAX_INVITE_USES,
  MEMBER_ROLES,
  type MemberRole,
  type MemberRoleRequest,
  MIN_INVITE_TTL_SECONDS,
  type WorkspaceAccess,
} from "../../protocol/members";
import type { Body } from "../door/route";
import { none, refusal } from "../door/schema";
import { defineRoute, type WorkspaceRoute } from "../workspace-parts";

/**
 * Members and invite links (protocol/members.ts): deciding who may use the
 * workspace is the owner's; anyone with a role may ask what theirs is.
 */
const role = z
  .unknown()
  .refine(
    isMemberRole,
    refusal(
      ErrorCode.INVALID_INVITE,
      `role must be one of: ${MEMBER_ROLES.join(", ")} (the owner's role is not given).`,
    ),
  )
  .transform((value) => value as MemberRole);

const whole = (min: number, max: number, what: string) =>
  z
    .unknown()
    .refine(
      (value) => typeof value === "number" && Number.isInteger(value) && value >= min && value <= max,
      refusal(ErrorCode.INVALID_INVITE, `${what} must be a whole number from ${min} to ${max}.`),
    )
    .transform((value) => value as number);

const createInvite = z.object({
  role,
  ttlSeconds: whole(MIN_INVITE_TTL_SECONDS, MAX_INVITE_TTL_SECONDS, "ttlSeconds"),
  uses: whole(1, MAX_INVITE_USES, "uses").optional(),
}) satisfies Body<CreateInviteRequest>;

const memberId = z.string().min(1).max(320);
const inviteId = z.string().regex(/^[a-z0-9]{1,40}$/, "Not an invite id.");

export const MEMBER_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "GET",
    path: "/me",
    role: "viewer",
    wake: "never",
    doc: "WorkspaceAccess: the caller's role, and whether the workspace is shared with them.",
    input: { query: none },
    handle: async ({ caller }) =>
      Response.json({ role: caller.role, shared: caller.role !== "owner" } satisfies WorkspaceAccess),
  }),
  defineRoute({
    method: "POST",
    path: "/invites",
    role: "owner",
    wake: "never",
    doc: "`{role, ttlSeconds, uses?}`: an invite link (400 INVALID_INVITE); 201 CreatedInvite, whose url is shown this once.",
    input: { body: { json: createInvite } },
    handle: async ({ body, url, workspace }) =>
      Response.json(await workspace.members.createInvite(body.role, body.ttlSeconds, body.uses ?? null, url.origin), {
        status: 201,
      }),
  }),
  defineRoute({
    method: "GET",
    path: "/invites",
    role: "owner",
    wake: "never",
    doc: "InviteList `{invites}`: the live invite links (never their urls again).",
    input: { query: none },
    handle: async ({ workspace }) => Response.json({ invites: workspace.members.listInvites() }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/invites/:inviteId",
    role: "owner",
    wake: "never",
    doc: "Revokes the invite: it admits nobody more, and whoever joined by it is removed. 204.",
    input: { params: z.object({ inviteId }) },
    handle: async ({ params, workspace }) => {
      await workspace.members.revokeInvite(params.inviteId);
      return new Response(null, { status: 204 });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/members",
    role: "owner",
    wake: "never",
    doc: "MemberList `{members}`: who may use the workspace, and their roles.",
    input: { query: none },
    handle: async ({ workspace }) => Response.json({ members: workspace.members.list() }),
  }),
  defineRoute({
    method: "PUT",
    path: "/members/:memberId",
    role: "owner",
    wake: "never",
    doc: "`{role}`: the member's role; answers Member (201 when a Cloudflare Access email was added).",
    input: { params: z.object({ memberId }), body: { json: z.object({ role }) satisfies Body<MemberRoleRequest> } },
    handle: async ({ params, body, workspace }) => {
      const { member, created } = await workspace.members.setRole(params.memberId, body.role);
      return Response.json(member, { status: created ? 201 : 200 });
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/members/:memberId",
    role: "owner",
    wake: "never",
    doc: "Removes the member: their sockets close now. 204.",
    input: { params: z.object({ memberId }) },
    handle: async ({ params, workspace }) => {
      await workspace.members.remove(params.memberId);
      return new Response(null, { status: 204 });
    },
  }),
];
