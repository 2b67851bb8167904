/**
 * Other users than the owner, for tests that check one user cannot reach
 * another's things: Cloudflare Access users signed by the stand-in team
 * (test/support/access-team.ts), each with real sessions of their own.
 */
import { importJWK, SignJWT } from "jose";
import { inject } from "vitest";
import { ACCESS_AUD } from "./access-team";

export interface AccessTokenOptions {
  aud?: string;
  expiresIn?: string;
  /** Seconds since the epoch; now by default. */
  issuedAt?: number;
}

/** A Cloudflare Access token for `email`; each one is distinct (its own jti), as Access's are. */
export async function accessToken(email: string, options: AccessTokenOptions = {}): Promise<string> {
  const key = await importJWK(inject("accessPrivateJwk"), "RS256");
  return new SignJWT({ email })
    .setProtectedHeader({ alg: "RS256", kid: "test-key" })
    .setIssuer(inject("accessTeamDomain"))
    .setAudience(options.aud ?? ACCESS_AUD)
    .setIssuedAt(options.issuedAt)
    .setJti(crypto.randomUUID())
    .setExpirationTime(options.expiresIn ?? "10m")
    .sign(key);
}

/** Request headers of a signed-in Access user `email`, from the app's own origin. */
export async function accessUser(email: string): Promise<Record<string, string>> {
  return { "Cf-Access-Jwt-Assertion": await accessToken(email), Origin: inject("baseUrl") };
}
