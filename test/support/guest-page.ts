/**
 * A guest joining a workspace in the browser, as a person does: the owner
 * makes an invite link, the guest opens it in a context of their own, gives
 * a name and joins, and lands in the workspace.
 */
import type { Browser, Page } from "playwright-core";
import type { MemberRole } from "../../protocol/members";
import { openPage, untilShown } from "./browser";
import { createInvite } from "./guests";

export async function joinInBrowser(
  browser: Browser,
  id: string,
  role: MemberRole,
  name: string,
): Promise<{ page: Page; errors: string[] }> {
  const invite = await createInvite(id, { role, ttlSeconds: 3600 });
  const url = new URL(invite.url);
  const guest = await openPage(browser, url.pathname + url.hash);
  await untilShown(guest.page, '[data-testid="join-invitation"]');
  await guest.page.getByLabel("Your name (the others see it)").fill(name);
  await guest.page.getByRole("button", { name: "Join" }).click();
  await guest.page.waitForURL(`**/workspaces/${id}`);
  return guest;
}
