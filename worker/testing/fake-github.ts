/**
 * Test only: GitHub's two device-flow endpoints as the test Worker answers
 * them (the test Workspace sends its GitHub requests here), so the sign-in
 * is tested without GitHub. The first poll of a code is "authorization
 * pending"; the next one grants FAKE_GITHUB_TOKEN.
 */
import { GITHUB_DEVICE_CODE_URL, GITHUB_TOKEN_URL } from "../git/github-device-flow";
import { FAKE_GITHUB_CLIENT_ID, FAKE_GITHUB_TOKEN, FAKE_GITHUB_USER_CODE } from "./test-git-hosts";

const polls = new Map<string, number>();

export async function fakeGitHub(request: Request): Promise<Response> {
  const form = new URLSearchParams(await request.text());
  if (form.get("client_id") !== FAKE_GITHUB_CLIENT_ID) return Response.json({ error: "incorrect_client_credentials" });
  if (request.url === GITHUB_DEVICE_CODE_URL) {
    const deviceCode = crypto.randomUUID();
    polls.set(deviceCode, 0);
    return Response.json({
      device_code: deviceCode,
      user_code: FAKE_GITHUB_USER_CODE,
      verification_uri: "https://github.com/login/device",
      expires_in: 900,
      // GitHub says 5; a test need not wait that long.
      interval: 1,
    });
  }
  if (request.url === GITHUB_TOKEN_URL) {
    const deviceCode = form.get("device_code") ?? "";
    const count = polls.get(deviceCode);
    if (count === undefined) return Response.json({ error: "expired_token" });
    polls.set(deviceCode, count + 1);
    if (count === 0) return Response.json({ error: "authorization_pending" });
    polls.delete(deviceCode);
    return Response.json({ access_token: FAKE_GITHUB_TOKEN, token_type: "bearer", scope: "repo" });
  }
  return new Response("not a GitHub endpoint the test Worker knows\n", { status: 404 });
}
