import { afterEach, describe, expect, it, vi } from "vitest";
import type { GitCredentials, GitHubDeviceCode, GitHubSignIn } from "../../protocol/git";
import type { NetworkPolicy, NetworkSettings } from "../../protocol/network";
import { GitCredentialsModel } from "./git-credentials-model";

function fakeApis(polls: GitHubSignIn[] = []) {
  let credentials: GitCredentials = {
    hosts: [
      { host: "github.com", updatedAt: "2026-01-01T00:00:00.000Z" },
      { host: "git.example.com", updatedAt: "2026-01-02T00:00:00.000Z" },
    ],
    githubSignIn: true,
  };
  let settings = {
    mode: "allowlist",
    allow: ["github.com"],
    secrets: [],
    containerMode: "allowlist",
    openAvailable: true,
  } as NetworkSettings;
  const pollCalls: number[] = [];
  const git = {
    credentials: async () => credentials,
    setToken: async (host: string) => {
      credentials = { ...credentials, hosts: [...credentials.hosts, { host, updatedAt: "2026-01-03T00:00:00.000Z" }] };
      return credentials;
    },
    removeToken: async (host: string) => {
      credentials = { ...credentials, hosts: credentials.hosts.filter((h) => h.host !== host) };
    },
    startGitHubSignIn: async () =>
      ({ userCode: "ABCD-1234", verificationUri: "https://github.com/login/device", interval: 5 }) as GitHubDeviceCode,
    pollGitHubSignIn: async () => {
      pollCalls.push(Date.now());
      return polls.shift() ?? ({ state: "pending", interval: 5 } as GitHubSignIn);
    },
  };
  const network = {
    get: async () => settings,
    update: async (policy: NetworkPolicy) => {
      settings = { ...settings, ...policy };
      return settings;
    },
  };
  return { git, network, pollCalls, setMode: (mode: NetworkSettings["mode"]) => (settings = { ...settings, mode }) };
}

afterEach(() => vi.useRealTimers());

describe("GitCredentialsModel", () => {
  it("says which tokens the network policy leaves unused, and Allow fixes it", async () => {
    const { git, network, setMode } = fakeApis();
    const model = new GitCredentialsModel(git, network);
    await model.load();
    expect(model.getSnapshot().hosts.map((h) => [h.host, h.unused])).toEqual([
      ["github.com", undefined],
      ["git.example.com", "not-allowed"],
    ]);
    await model.allow("git.example.com");
    expect(model.getSnapshot().hosts.map((h) => h.unused)).toEqual([undefined, undefined]);
    setMode("open");
    await model.load();
    expect(model.getSnapshot().hosts.map((h) => h.unused)).toEqual(["open", "open"]);
  });

  it("adds and removes tokens by host, telling its readers each time", async () => {
    const { git, network } = fakeApis();
    const model = new GitCredentialsModel(git, network);
    let told = 0;
    model.subscribe(() => told++);
    await model.setToken("  gitlab.com ", "glpat-1");
    expect(model.getSnapshot().hosts.map((h) => h.host)).toEqual(["github.com", "git.example.com", "gitlab.com"]);
    await model.remove("github.com");
    expect(model.getSnapshot().hosts.map((h) => h.host)).toEqual(["git.example.com", "gitlab.com"]);
    expect(told).toBe(2);
    expect(model.getSnapshot().githubSignIn).toBe(true);
  });

  it("shows GitHub's code while the device sign-in runs, polls at GitHub's pace and reloads when done", async () => {
    vi.useFakeTimers();
    const { git, network, pollCalls } = fakeApis([
      { state: "pending", interval: 10 } as GitHubSignIn,
      { state: "done" } as GitHubSignIn,
    ]);
    const model = new GitCredentialsModel(git, network);
    const outcome = model.signInWithGitHub();
    await vi.advanceTimersByTimeAsync(0);
    expect(model.getSnapshot().signIn?.userCode).toBe("ABCD-1234");
    await vi.advanceTimersByTimeAsync(4_999);
    expect(pollCalls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(pollCalls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(pollCalls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(outcome).resolves.toBe("done");
    expect(model.getSnapshot().signIn).toBeUndefined();
    expect(model.getSnapshot().hosts).toHaveLength(2);
  });

  it("stops asking GitHub when the panel closes", async () => {
    vi.useFakeTimers();
    const { git, network, pollCalls } = fakeApis();
    const model = new GitCredentialsModel(git, network);
    const outcome = model.signInWithGitHub();
    await vi.advanceTimersByTimeAsync(0);
    model.stopSignIn();
    await expect(outcome).rejects.toThrow(/stopped/);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(pollCalls).toHaveLength(0);
    expect(model.getSnapshot().signIn).toBeUndefined();
  });
});
