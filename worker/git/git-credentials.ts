import { ErrorCode } from "../../protocol/errors";
import type { GitCredential } from "../../protocol/git";
import { basicAuthorization, checkHostPattern, type SecretInfo, type SecretInput } from "../../protocol/network";
import { AppError } from "../errors";

/**
 * Tokens for git hosts, kept as the workspace's network secrets (worker/network/):
 * stored only in the Durable Object, added by the Worker as `Authorization`
 * to HTTPS requests to that one host, never in the container. One secret per
 * host, named `git-HOST`.
 */
const PREFIX = "git-";

export function gitSecretName(host: string): string {
  return `${PREFIX}${host}`;
}

/** The user name git hosts expect beside a token in HTTP basic auth. */
export function tokenUser(host: string): string {
  if (host === "github.com") return "x-access-token";
  if (host === "bitbucket.org") return "x-token-auth";
  if (host === "gitlab.com" || host.startsWith("gitlab.")) return "oauth2";
  return "git";
}

/** The secret that sends `token` to `host` the way git sends a password: basic auth. */
export function gitSecret(host: string, token: string, user = tokenUser(host)): Required<SecretInput> {
  return { value: basicAuthorization(user, token), hosts: [host], header: "Authorization" };
}

/** A git host: one exact name (a token for `*` or a pattern would go to hosts nobody chose). */
export function checkGitHost(value: unknown): string {
  const checked = checkHostPattern(value);
  if (!checked.ok || checked.value.startsWith("*")) {
    throw new AppError(
      ErrorCode.BAD_REQUEST,
      `host must be one host name, such as github.com${checked.ok ? "" : `: ${checked.reason}`}.`,
    );
  }
  return checked.value;
}

export function checkToken(value: unknown): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (typeof value !== "string" || value.trim() === "" || /[\u0000-\u001f\u007f\s]/.test(value.trim())) {
    throw new AppError(ErrorCode.BAD_REQUEST, "token must be the token itself: no spaces or line breaks.");
  }
  if (value.length > 4096) throw new AppError(ErrorCode.BAD_REQUEST, "token is longer than 4096 characters.");
  return value.trim();
}

/** The hosts that have a token, from the workspace's secrets (never their values). */
export function gitCredentials(secrets: readonly SecretInfo[]): GitCredential[] {
  return secrets
    .filter((s) => s.name.startsWith(PREFIX) && s.hosts.length === 1)
    .map((s) => ({ host: s.hosts[0] as string, updatedAt: s.updatedAt }))
    .sort((a, b) => a.host.localeCompare(b.host));
}
