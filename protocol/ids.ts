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

const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** A new random workspace id: 16 characters, about 82 bits. */
export function newWorkspaceId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  // 256 % 36 = 4: the bias toward the first four letters is negligible for an id.
  return Array.from(bytes, (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join("");
}
