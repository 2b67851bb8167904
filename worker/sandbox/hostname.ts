import type { Sandbox } from "./sandbox";

/**
 * Makes the container's own hostname resolve, from /etc/hosts. On Cloudflare
 * it does not, and tools that look it up at start exit or stall: the seed
 * names `python3 -m http.server` (which asks for the host's full name when it
 * binds). Docker already lists it locally, so there this changes nothing.
 * Idempotent: a name already listed is left as it is.
 */
export const HOSTNAME_SCRIPT = `h="$(hostname)"
[ -n "$h" ] || exit 0
grep -qE "[[:space:]]$h([[:space:]]|\\$)" "$1" 2>/dev/null || printf '127.0.1.1\\t%s\\n' "$h" >>"$1"`;

export async function ensureHostnameResolves(
  sandbox: Pick<Sandbox, "stdout">,
  hostsFile = "/etc/hosts",
): Promise<void> {
  await sandbox.stdout(["sh", "-c", HOSTNAME_SCRIPT, "sh", hostsFile], { wake: false });
}
