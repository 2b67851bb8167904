/**
 * Cloudflare Access: when ACCESS_TEAM_DOMAIN and ACCESS_AUD are set, a request
 * carrying `Cf-Access-Jwt-Assertion` signed by the team's keys, for this
 * application's audience and not expired, is signed in as the token's email.
 */
import { createRemoteJWKSet, jwtVerify } from "jose";

type KeySet = ReturnType<typeof createRemoteJWKSet>;
const keySets = new Map<string, KeySet>();

function teamKeys(teamDomain: string): KeySet {
  let keys = keySets.get(teamDomain);
  if (!keys) {
    keys = createRemoteJWKSet(new URL("/cdn-cgi/access/certs", teamDomain));
    keySets.set(teamDomain, keys);
  }
  return keys;
}

/** `https://team.cloudflareaccess.com` from either that or `team.cloudflareaccess.com`. */
export function teamOrigin(teamDomain: string): string {
  return /^https?:\/\//.test(teamDomain) ? teamDomain.replace(/\/+$/, "") : `https://${teamDomain}`;
}

/** A verified Access token: who, and the token's own times (milliseconds). */
export interface AccessIdentity {
  email: string;
  token: string;
  issuedAt: number;
  expiresAt: number;
}

/** The verified identity, or undefined when Access is off or the token is not valid. */
export async function accessIdentity(request: Request, env: Env): Promise<AccessIdentity | undefined> {
  const teamDomain = env.ACCESS_TEAM_DOMAIN;
  const audience = env.ACCESS_AUD;
  const token = request.headers.get("Cf-Access-Jwt-Assertion");
  if (!teamDomain || !audience || !token) return undefined;
  const issuer = teamOrigin(teamDomain);
  try {
    const { payload } = await jwtVerify(token, teamKeys(issuer), { issuer, audience });
    if (typeof payload.email !== "string" || !payload.email || typeof payload.exp !== "number") return undefined;
    return {
      email: payload.email.toLowerCase(),
      token,
      issuedAt: (payload.iat ?? 0) * 1000,
      expiresAt: payload.exp * 1000,
    };
  } catch {
    return undefined;
  }
}
