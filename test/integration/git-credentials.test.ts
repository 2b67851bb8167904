import { gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import type { GitCredentials, GitHubDeviceCode, GitHubSignIn, GitSyncEvent } from "../../protocol/git";
import { basicAuthorization, type SecretInfo } from "../../protocol/network";
import {
  FAKE_GITHUB_TOKEN,
  FAKE_GITHUB_USER_CODE,
  TEST_REPOSITORY_SUBJECT,
  TEST_TOKEN,
} from "../../worker/testing/test-git-hosts";
import { api } from "../support/api";
import { shell, workspaceContainer } from "../support/files";
import { createWorkspace, ownerApi } from "../support/session";
import { accessUser } from "../support/users";

// The git host is the test Worker's own (git.egress.test, answered by its
// Outbound entrypoint): its private repository answers only requests that
// carry TEST_TOKEN as basic auth. No outside host is reached.

let id: string;
let container: string;

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});
const credentials = (suffix = "", init?: RequestInit) =>
  ownerApi(`/api/workspaces/${id}/git/credentials${suffix}`, init);

async function fetchFromOrigin(): Promise<GitSyncEvent[]> {
  const response = await ownerApi(`/api/workspaces/${id}/git/fetch`, json("POST", {}));
  expect(response.status).toBe(200);
  return (await response.text())
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as GitSyncEvent);
}

beforeAll(async () => {
  id = await createWorkspace("git credentials");
  const policy = await ownerApi(
    `/api/workspaces/${id}/network`,
    json("PUT", { mode: "allowlist", allow: ["git.egress.test"] }),
  );
  expect(policy.status).toBe(200);
  container = await workspaceContainer(id);
  shell(container, "cd /workspace && git init -q -b main && git remote add origin https://git.egress.test/private.git");
});

describe("git credentials", () => {
  it("uses a host's token for its HTTPS remote, and the token is nowhere in the container or an export", async () => {
    const without = await fetchFromOrigin();
    expect(without.at(-1)).toMatchObject({
      type: "error",
      message: expect.stringMatching(/could not read Username|Authentication failed/),
    });

    const set = await credentials("", json("PUT", { host: "git.egress.test", token: TEST_TOKEN }));
    expect(set.status).toBe(200);
    const listed = (await set.json()) as GitCredentials;
    expect(listed.hosts.map((h) => h.host)).toEqual(["git.egress.test"]);
    expect(JSON.stringify(listed)).not.toContain(TEST_TOKEN);
    // It is a network secret of the workspace, for that one host.
    const secrets = (await (await ownerApi(`/api/workspaces/${id}/network/secrets`)).json()) as {
      secrets: SecretInfo[];
    };
    expect(secrets.secrets).toContainEqual(
      expect.objectContaining({ name: "git-git.egress.test", hosts: ["git.egress.test"], header: "Authorization" }),
    );

    const fetched = await fetchFromOrigin();
    expect(fetched.at(-1)).toEqual({ type: "done" });
    expect(shell(container, "git -C /workspace log -1 --format=%s origin/main")).toBe(TEST_REPOSITORY_SUBJECT);

    // Neither the token nor the header made from it is in the container.
    const header = basicAuthorization("git", TEST_TOKEN).slice("Basic ".length);
    for (const secret of [TEST_TOKEN, header]) {
      expect(
        shell(
          container,
          `cat /workspace/.git/config; grep -rlF -- '${secret}' /workspace /root /etc /tmp /home /var/lib/cloud-ide 2>/dev/null; true`,
        ),
      ).not.toContain(secret);
      expect(
        shell(container, `grep -lF -- '${secret}' /workspace/.git/config /root/.gitconfig 2>/dev/null; true`),
      ).toBe("");
      expect(
        shell(container, `cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -cF -- '${secret}'; true`),
      ).toBe("0");
    }
    const exported = await ownerApi(`/api/workspaces/${id}/export`);
    expect(exported.status).toBe(200);
    const archive = gunzipSync(Buffer.from(await exported.arrayBuffer())).toString("latin1");
    expect(archive).toContain(".git/config");
    expect(archive).not.toContain(TEST_TOKEN);
    expect(archive).not.toContain(header);

    // Removed: the remote refuses again.
    expect((await credentials("?host=git.egress.test", { method: "DELETE" })).status).toBe(204);
    expect((await fetchFromOrigin()).at(-1)?.type).toBe("error");
    expect((await credentials("?host=git.egress.test", { method: "DELETE" })).status).toBe(404);
  });

  it("signs in to GitHub with the device flow and keeps the token as github.com's", async () => {
    const before = (await (await credentials()).json()) as GitCredentials;
    expect(before.githubSignIn).toBe(true);
    const started = await credentials("/github", { method: "POST" });
    expect(started.status).toBe(200);
    const code = (await started.json()) as GitHubDeviceCode;
    expect(code).toMatchObject({ userCode: FAKE_GITHUB_USER_CODE, verificationUri: "https://github.com/login/device" });
    // The device code GitHub polls with stays in the workspace.
    expect(Object.keys(code).sort()).toEqual(["expiresAt", "interval", "userCode", "verificationUri"]);
    let answer: GitHubSignIn = { state: "pending", interval: code.interval };
    for (let tries = 0; answer.state === "pending" && tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, answer.state === "pending" ? answer.interval * 1000 : 0));
      answer = (await (await credentials("/github/poll", { method: "POST" })).json()) as GitHubSignIn;
    }
    expect(answer).toEqual({ state: "done" });
    const after = (await (await credentials()).json()) as GitCredentials;
    expect(after.hosts.map((h) => h.host)).toContain("github.com");
    expect(JSON.stringify(after)).not.toContain(FAKE_GITHUB_TOKEN);
    expect(shell(container, `grep -rlF -- '${FAKE_GITHUB_TOKEN}' /workspace /root /etc /tmp 2>/dev/null; true`)).toBe(
      "",
    );
    // Nothing pending any more.
    expect(await (await credentials("/github/poll", { method: "POST" })).json()).toEqual({ state: "expired" });
  });

  it("refuses a token for every host or a pattern, an empty token, and another user", async () => {
    for (const [host, token] of [
      ["*", TEST_TOKEN],
      ["*.example.com", TEST_TOKEN],
      ["https://github.com", TEST_TOKEN],
      ["github.com", ""],
      ["github.com", "two words"],
    ]) {
      const response = await credentials("", json("PUT", { host, token }));
      expect(response.status, `${host} ${token}`).toBe(400);
    }
    const mallory = await accessUser("mallory-git@example.com");
    for (const [method, suffix] of [
      ["GET", ""],
      ["PUT", ""],
      ["DELETE", "?host=github.com"],
      ["POST", "/github"],
      ["POST", "/github/poll"],
    ] as const) {
      const response = await api(`/api/workspaces/${id}/git/credentials${suffix}`, {
        method,
        headers: { ...mallory, "Content-Type": "application/json" },
        ...(method === "PUT" ? { body: JSON.stringify({ host: "github.com", token: "mallorys" }) } : {}),
      });
      expect(response.status, `${method} ${suffix}`).toBe(404);
    }
  });
});
