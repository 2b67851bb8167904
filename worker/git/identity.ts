/**
 * The git author of a workspace's owner when git has none configured: an
 * Access user's email and its local part; a password user (id "owner") has
 * no email, so theirs says it is made up (`.invalid` is never a real domain).
 */
export function ownerIdentity(userId: string): { name: string; email: string } {
  const at = userId.lastIndexOf("@");
  if (at > 0 && at < userId.length - 1) return { name: userId.slice(0, at), email: userId };
  return { name: userId, email: `${userId}@cloud-ide.invalid` };
}
