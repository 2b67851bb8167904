import { type Context, Hono } from "hono";
import {
  type AddSshKeyRequest,
  type CreateTokenRequest,
  checkLabel,
  DEVICE_TOKEN_TTL_SECONDS,
  type DeviceLoginStart,
  MAX_SSH_KEYS,
  MAX_TOKEN_TTL_SECONDS,
  MAX_TOKENS,
  MIN_TOKEN_TTL_SECONDS,
  normalUserCode,
  parsePublicKey,
  USER_CODE_ALPHABET,
} from "../../protocol/access";
import { ErrorCode } from "../../protocol/errors";
import type { AppEnv } from "../app-env";
import { mintToken, sha256Hex, tokenOf, tokenSessionId } from "../auth/access-token";
import type { AttemptKind } from "../auth/attempt-window";
import { clientAddress } from "../auth/client-address";
import { DEVICE_LOGIN_SECONDS, DEVICE_POLL_SECONDS } from "../auth/device-login";
import type { SignInThrottle } from "../auth/sign-in-throttle";
import { userDirectory } from "../directory";
import { AppError, notFound } from "../errors";
import { drainBody, readJsonObject } from "../http";
import { randomToken } from "../previews/tokens";
import { closeSockets } from "./session";

/**
 * `/api/tokens` and `/api/ssh-keys` (a browser session only: a token cannot
 * make tokens or register keys), and the signed-in half of the device login:
 *
 *   POST   /api/tokens {name, ttlSeconds}  201 {id, name, token, expiresAt}: the token, shown this once
 *   GET    /api/tokens                     [{id, name, createdAt, expiresAt, lastUsedAt}]
 *   DELETE /api/tokens/{id}                204; its open tunnels close
 *   POST   /api/ssh-keys {name, publicKey} 201 SshKeySummary (ed25519, ecdsa, RSA >= 3072 bits)
 *   GET    /api/ssh-keys                   [SshKeySummary]
 *   DELETE /api/ssh-keys/{id}              204
 *   POST   /api/device/approve {userCode}  204: the person approves a `cloud-ide login`;
 *                                          429 TOO_MANY_ATTEMPTS after 10 codes that matched nothing
 */
export const accessRoutes = new Hono<AppEnv>();

function refuseGuests(c: Context<AppEnv>): void {
  if (c.get("user").via === "guest") {
    throw new AppError(
      ErrorCode.FORBIDDEN,
      "A guest has no access tokens or SSH keys: they belong to people with their own sign-in.",
    );
  }
}

accessRoutes.post("/tokens", async (c) => {
  refuseGuests(c);
  const body = (await readJsonObject(c.req.raw)) as Partial<Record<keyof CreateTokenRequest, unknown>>;
  const label = checkLabel(body.name, "A token");
  if ("error" in label) throw new AppError(ErrorCode.INVALID_ACCESS_TOKEN, label.error);
  const ttl = body.ttlSeconds;
  if (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl < MIN_TOKEN_TTL_SECONDS || ttl > MAX_TOKEN_TTL_SECONDS) {
    throw new AppError(
      ErrorCode.INVALID_ACCESS_TOKEN,
      `ttlSeconds must be a whole number of seconds from ${MIN_TOKEN_TTL_SECONDS} to ${MAX_TOKEN_TTL_SECONDS} (366 days).`,
    );
  }
  const user = c.get("user");
  if ((await userDirectory(c.env, user.id).listTokens()).length >= MAX_TOKENS) {
    throw new AppError(ErrorCode.TOO_MANY_ACCESS_TOKENS, `You have ${MAX_TOKENS} live tokens: revoke one first.`);
  }
  return c.json(await mintToken(c.env, user, label.name, ttl), 201);
});

accessRoutes.get("/tokens", async (c) => c.json(await userDirectory(c.env, c.get("user").id).listTokens()));

accessRoutes.delete("/tokens/:id", async (c) => {
  const user = c.get("user");
  const id = c.req.param("id");
  if (!(await userDirectory(c.env, user.id).revokeToken(id))) {
    throw notFound("No such token: it was revoked or expired already, or it is not yours.");
  }
  // What it opened (ssh tunnels) ends with it.
  await closeSockets(c.env, user.id, [tokenSessionId(id)]);
  return c.body(null, 204);
});

accessRoutes.post("/ssh-keys", (c) => addSshKey(c));

/**
 * `POST /api/ssh-keys`: a session's; or a personal access token's (the CLI
 * registers its own key, worker/index.ts), and then the key lasts only as
 * long as that token.
 */
export async function addSshKey(c: Context<AppEnv>): Promise<Response> {
  refuseGuests(c);
  const body = (await readJsonObject(c.req.raw)) as Partial<Record<keyof AddSshKeyRequest, unknown>>;
  const label = checkLabel(body.name, "A key");
  if ("error" in label) throw new AppError(ErrorCode.INVALID_SSH_KEY, label.error);
  const key = parsePublicKey(body.publicKey);
  if ("error" in key) throw new AppError(ErrorCode.INVALID_SSH_KEY, key.error);
  const directory = userDirectory(c.env, c.get("user").id);
  if ((await directory.listSshKeys()).length >= MAX_SSH_KEYS) {
    throw new AppError(ErrorCode.TOO_MANY_SSH_KEYS, `You have ${MAX_SSH_KEYS} SSH keys: remove one first.`);
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", key.blob));
  const fingerprint = `SHA256:${btoa(String.fromCharCode(...digest)).replace(/=+$/, "")}`;
  const added = await directory.addSshKey(
    {
      id: randomToken(16),
      name: label.name,
      type: key.type,
      fingerprint,
      publicKey: key.line,
    },
    tokenOf(c.get("user").sessionId),
  );
  if (!added) throw new AppError(ErrorCode.SSH_KEY_EXISTS, `This key (${fingerprint}) is registered already.`);
  return c.json(added, 201);
}

accessRoutes.get("/ssh-keys", async (c) => c.json(await userDirectory(c.env, c.get("user").id).listSshKeys()));

accessRoutes.delete("/ssh-keys/:id", async (c) => {
  if (!(await userDirectory(c.env, c.get("user").id).removeSshKey(c.req.param("id")))) {
    throw notFound("No such SSH key: it was removed already, or it is not yours.");
  }
  return c.body(null, 204);
});

accessRoutes.post("/device/approve", async (c) => {
  refuseGuests(c);
  const body = await readJsonObject(c.req.raw);
  const user = c.get("user");
  // Counted before the code is looked up, in one step (as sign-ins are): codes cannot be tried by the thousand.
  const throttle = c.env.SignInThrottle.getByName(`user:${user.id}`);
  await allowAttempt(throttle, "device-approve", "Too many codes that match no waiting login.");
  const code = normalUserCode(body.userCode);
  if (!code || !(await c.env.DeviceLogin.getByName(`device:${code}`).approve({ id: user.id, via: user.via }))) {
    throw new AppError(
      ErrorCode.DEVICE_LOGIN_UNUSABLE,
      "No login waits with this code: check it against your terminal, or run cloud-ide login again (a code lasts 10 minutes).",
    );
  }
  await throttle.succeeded("device-approve");
  return c.body(null, 204);
});

/** Counts one attempt of `kind`; throws 429 TOO_MANY_ATTEMPTS (with Retry-After) past its limit. */
async function allowAttempt(
  throttle: DurableObjectStub<SignInThrottle>,
  kind: AttemptKind,
  what: string,
): Promise<void> {
  const verdict = await throttle.attempt(kind);
  if (!verdict.allowed) {
    throw new AppError(
      ErrorCode.TOO_MANY_ATTEMPTS,
      `${what} Try again in ${verdict.retryAfterSeconds} seconds.`,
      verdict.retryAfterSeconds,
    );
  }
}

/**
 * The client's half of the device login (no session, no Origin: a command
 * line has neither; the device code is its secret):
 *
 *   POST /api/device                     {deviceCode, userCode, verificationUrl, interval, expiresIn};
 *                                        429 TOO_MANY_ATTEMPTS past 10 starts in 10 minutes from one address
 *   POST /api/device/token {deviceCode}  428 DEVICE_LOGIN_PENDING, then 200 {id, name, token, expiresAt} once
 *
 * The poll needs no throttle: its device code carries a 43-character secret
 * (about 220 bits) that only the client that started the login has.
 */
export const deviceClientRoutes = new Hono<AppEnv>();

deviceClientRoutes.post("/", async (c) => {
  // Read the body (nothing in it is used) first: answering before it is read breaks the connection it came on.
  await drainBody(c.req.raw);
  const address = clientAddress(c.req.raw, import.meta.env.DEV);
  await allowAttempt(
    c.env.SignInThrottle.getByName(`ip:${address}`),
    "device-start",
    "Too many logins started from this address.",
  );
  const secret = randomToken(43);
  for (let attempt = 0; attempt < 5; attempt++) {
    let letters = "";
    for (const byte of crypto.getRandomValues(new Uint8Array(8))) letters += USER_CODE_ALPHABET[byte % 20];
    const userCode = `${letters.slice(0, 4)}-${letters.slice(4)}`;
    if (await c.env.DeviceLogin.getByName(`device:${userCode}`).open(await sha256Hex(secret))) {
      const verification = new URL("/device", c.req.url);
      verification.searchParams.set("code", userCode);
      return c.json({
        deviceCode: `${letters}.${secret}`,
        userCode,
        verificationUrl: verification.toString(),
        interval: DEVICE_POLL_SECONDS,
        expiresIn: DEVICE_LOGIN_SECONDS,
      } satisfies DeviceLoginStart);
    }
  }
  throw new Error("no free device login code after 5 tries");
});

deviceClientRoutes.post("/token", async (c) => {
  const body = await readJsonObject(c.req.raw);
  const match = typeof body.deviceCode === "string" ? /^([A-Z]{8})\.([a-z0-9]{43})$/.exec(body.deviceCode) : null;
  const code = match ? normalUserCode(match[1]) : undefined;
  const unusable = new AppError(
    ErrorCode.DEVICE_LOGIN_UNUSABLE,
    "This login expired, was used, or is not known: run cloud-ide login again.",
  );
  if (!match?.[2] || !code) throw unusable;
  const taken = await c.env.DeviceLogin.getByName(`device:${code}`).take(await sha256Hex(match[2]));
  if (taken === "unusable") throw unusable;
  if (taken === "pending") {
    throw new AppError(ErrorCode.DEVICE_LOGIN_PENDING, "Not approved yet: open the page and approve the code.");
  }
  const agent = (c.req.header("User-Agent") ?? "").slice(0, 60);
  return c.json(
    await mintToken(c.env, taken, `cloud-ide login${agent ? ` (${agent})` : ""}`, DEVICE_TOKEN_TTL_SECONDS),
  );
});
