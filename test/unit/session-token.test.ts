import { describe, expect, it } from "vitest";
import { signSession, verifySession } from "../../worker/auth/session-token";

const SECRET = "unit-test-secret";
const now = 1_800_000_000;

describe("session tokens", () => {
  it("verifies a token it signed until it expires", async () => {
    const token = await signSession({ sub: "owner", via: "password", sid: "s1", exp: now + 60 }, SECRET);
    expect(await verifySession(token, SECRET, now)).toEqual({
      sub: "owner",
      via: "password",
      sid: "s1",
      exp: now + 60,
    });
    expect(await verifySession(token, SECRET, now + 60)).toBeUndefined();
  });

  it("refuses another secret's token, a changed payload, and junk", async () => {
    const token = await signSession({ sub: "owner", via: "password", sid: "s1", exp: now + 60 }, SECRET);
    const [, signature] = token.split(".");
    const otherPayload = Buffer.from(
      JSON.stringify({ sub: "mallory", via: "password", sid: "s1", exp: now + 60 }),
    ).toString("base64url");
    for (const bad of [
      await signSession({ sub: "owner", via: "password", sid: "s1", exp: now + 60 }, "another-secret"),
      `${otherPayload}.${signature}`,
      `${token}.extra`,
      "",
      "abc",
      "a.b",
      "!!!.???",
    ]) {
      expect(await verifySession(bad, SECRET, now), bad).toBeUndefined();
    }
  });

  it("refuses signed claims of the wrong shape", async () => {
    const claims = { sub: "", via: "password", sid: "s1", exp: now + 60 } as const;
    expect(await verifySession(await signSession(claims, SECRET), SECRET, now)).toBeUndefined();
    // A cookie from before sessions were kept on the server names none: it is no session.
    const old = { sub: "owner", via: "password", exp: now + 60 } as unknown as typeof claims;
    expect(await verifySession(await signSession(old, SECRET), SECRET, now)).toBeUndefined();
  });
});
