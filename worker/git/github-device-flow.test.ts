import { describe, expect, it } from "vitest";
import { GITHUB_DEVICE_CODE_URL, GITHUB_TOKEN_URL, GitHubDeviceFlow } from "./github-device-flow";

/** GitHub's two endpoints as the test scripts them; the requests they got. */
function fakeGitHub(tokenAnswers: Record<string, unknown>[]) {
  const seen: { url: string; form: URLSearchParams }[] = [];
  const send = async (request: Request) => {
    const form = new URLSearchParams(await request.text());
    seen.push({ url: request.url, form });
    if (request.url === GITHUB_DEVICE_CODE_URL) {
      return Response.json({
        device_code: "device-123",
        user_code: "ABCD-1234",
        verification_uri: "https://github.com/login/device",
        expires_in: 900,
        interval: 5,
      });
    }
    return Response.json(tokenAnswers.shift() ?? { error: "authorization_pending" });
  };
  return { send, seen };
}

describe("GitHubDeviceFlow", () => {
  it("answers the code, waits GitHub's interval between polls, and stores the token once given", async () => {
    let now = 1_000_000;
    const stored: string[] = [];
    const github = fakeGitHub([
      { error: "authorization_pending" },
      { error: "slow_down", interval: 10 },
      { access_token: "gho_secret" },
    ]);
    const flow = new GitHubDeviceFlow(
      "client-1",
      github.send,
      async (token) => void stored.push(token),
      () => now,
    );
    expect(flow.available).toBe(true);
    const code = await flow.start();
    expect(code).toMatchObject({
      userCode: "ABCD-1234",
      verificationUri: "https://github.com/login/device",
      interval: 5,
    });
    expect(github.seen[0]?.form.get("client_id")).toBe("client-1");
    expect(github.seen[0]?.form.get("scope")).toBe("repo");
    // Too soon: GitHub is not asked.
    expect(await flow.poll()).toEqual({ state: "pending", interval: 5 });
    expect(github.seen).toHaveLength(1);
    now += 5_000;
    expect(await flow.poll()).toEqual({ state: "pending", interval: 5 });
    now += 5_000;
    expect(await flow.poll()).toEqual({ state: "pending", interval: 10 });
    now += 10_000;
    expect(await flow.poll()).toEqual({ state: "done" });
    expect(stored).toEqual(["gho_secret"]);
    const tokenRequest = github.seen.at(-1);
    expect(tokenRequest?.url).toBe(GITHUB_TOKEN_URL);
    expect(tokenRequest?.form.get("device_code")).toBe("device-123");
    expect(tokenRequest?.form.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:device_code");
    // Done: nothing pending any more.
    expect(await flow.poll()).toEqual({ state: "expired" });
  });

  it("says when the person refused or the code expired, and is off without a client id", async () => {
    let now = 0;
    const denied = new GitHubDeviceFlow(
      "c",
      fakeGitHub([{ error: "access_denied" }]).send,
      async () => {},
      () => now,
    );
    await denied.start();
    now += 5_000;
    expect(await denied.poll()).toEqual({ state: "denied" });
    const expired = new GitHubDeviceFlow(
      "c",
      fakeGitHub([]).send,
      async () => {},
      () => now,
    );
    await expired.start();
    now += 901_000;
    expect(await expired.poll()).toEqual({ state: "expired" });
    const off = new GitHubDeviceFlow(undefined, fakeGitHub([]).send, async () => {});
    expect(off.available).toBe(false);
    await expect(off.start()).rejects.toMatchObject({ code: "INVALID_STATE" });
  });
});
