/**
 * Session cookies: `base64url(JSON claims).base64url(HMAC-SHA256)`, signed with
 * SESSION_SECRET. The signature proves the Worker made it; the session it
 * names (`sid`) must also still be live in the user's Directory object
 * (worker/auth/session-store.ts), so signing out ends it at once. Rotating
 * SESSION_SECRET signs everybody out.
 */
import type { SignInKind } from "../../protocol/session";

export interface SessionClaims {
  /** user id */
  sub: string;
  via: SignInKind;
  /** session id: a row in the user's Directory object */
  sid: string;
  /** expiry, seconds since the epoch */
  exp: number;
}

export const SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
}

export async function signSession(claims: SessionClaims, secret: string): Promise<string> {
  const payload = base64url(encoder.encode(JSON.stringify(claims)));
  const signature = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(payload));
  return `${payload}.${base64url(new Uint8Array(signature))}`;
}

/** Returns the claims of a genuine, unexpired token, else undefined. */
export async function verifySession(
  token: string,
  secret: string,
  nowSeconds = Date.now() / 1000,
): Promise<SessionClaims | undefined> {
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined) return undefined;
  const signatureBytes = fromBase64url(signature);
  if (!signatureBytes) return undefined;
  // crypto.subtle.verify compares in constant time.
  const genuine = await crypto.subtle.verify("HMAC", await hmacKey(secret), signatureBytes, encoder.encode(payload));
  if (!genuine) return undefined;
  const json = fromBase64url(payload);
  if (!json) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder().decode(json));
  } catch {
    return undefined;
  }
  if (!isClaims(claims) || claims.exp <= nowSeconds) return undefined;
  return claims;
}

function isClaims(value: unknown): value is SessionClaims {
  const c = value as SessionClaims;
  return (
    typeof c === "object" &&
    c !== null &&
    typeof c.sub === "string" &&
    c.sub.length > 0 &&
    (c.via === "password" || c.via === "access" || c.via === "guest") &&
    typeof c.sid === "string" &&
    c.sid.length > 0 &&
    typeof c.exp === "number"
  );
}

/** A new session id: 128 random bits, base64url. */
export function newSessionId(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(16)));
}
