/**
 * Identifiers that travel in URLs and hostnames.
 *
 * Workspace ids name a Durable Object and appear in preview hostnames
 * (`{port}-{workspace}-{token}.{PREVIEW_DOMAIN}`), so they are DNS labels made
 * of lowercase letters and digits only: with no hyphens inside, the preview
 * label splits one way.
 */
export const WORKSPACE_ID_PATTERN = /^[a-z0-9]{1,63}$/;

export function isWorkspaceId(value: string): boolean {
  return WORKSPACE_ID_PATTERN.test(value);
}
