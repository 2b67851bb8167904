/**
 * Members by invite links (issue 24): the owner makes a link, a visitor
 * accepts it and is signed in as a guest of that one workspace.
 */
import { expect, inject } from "vitest";
import type { CreatedInvite, CreateInviteRequest } from "../../protocol/members";
import { api } from "./api";
import { ownerApi } from "./session";

/** The owner makes an invite link to workspace `id`. */
export async function createInvite(id: string, request: CreateInviteRequest): Promise<CreatedInvite> {
  const response = await ownerApi(`/api/workspaces/${id}/invites`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(request),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as CreatedInvite;
}

/** The workspace id and token an invite url carries (`/join/{workspace}#{token}`). */
export function inviteParts(url: string): { workspace: string; token: string } {
  const parsed = new URL(url);
  return { workspace: parsed.pathname.split("/").at(-1) ?? "", token: parsed.hash.slice(1) };
}

/** Accepts an invite as a visitor (with `headers`, an already signed-in one); the answer as it came. */
export function acceptInvite(url: string, name: string, headers: Record<string, string> = {}): Promise<Response> {
  return api("/api/invites/accept", {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: inject("baseUrl"), ...headers },
    body: JSON.stringify({ ...inviteParts(url), name }),
  });
}

/** Accepts an invite as a new guest named `name` and returns the headers that sign the guest in. */
export async function joinAsGuest(url: string, name: string): Promise<Record<string, string>> {
  const response = await acceptInvite(url, name);
  expect(response.status, await response.clone().text()).toBe(200);
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  expect(cookie).toMatch(/^cloud_ide_session=/);
  return { Cookie: cookie, Origin: inject("baseUrl") };
}
