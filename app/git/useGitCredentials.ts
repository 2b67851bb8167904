import { useCallback, useEffect, useRef, useState } from "react";
import type { GitCredentials, GitHubDeviceCode } from "../../protocol/git";
import { matchesAny, type NetworkSettings } from "../../protocol/network";
import type { GitApi } from "../api/git";
import type { NetworkApi } from "../api/network";

export interface HostCredential {
  host: string;
  updatedAt: string;
  /** Why the token is not used now, if it is not (the network policy). */
  unused?: "open" | "not-allowed";
}

/**
 * The tokens for git hosts (kept as the workspace's network secrets, never in
 * the container), what the network policy does with them, and GitHub's
 * device sign-in while it runs.
 */
export function useGitCredentials(git: GitApi, network: NetworkApi) {
  const [credentials, setCredentials] = useState<GitCredentials>();
  const [policy, setPolicy] = useState<NetworkSettings>();
  const [signIn, setSignIn] = useState<GitHubDeviceCode>();
  const polling = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const load = useCallback(async () => {
    const [creds, settings] = await Promise.all([git.credentials(), network.get()]);
    setCredentials(creds);
    setPolicy(settings);
  }, [git, network]);
  useEffect(() => {
    void load().catch(() => {});
    return () => clearTimeout(polling.current);
  }, [load]);

  const hosts: HostCredential[] = (credentials?.hosts ?? []).map((c) => ({
    ...c,
    unused: !policy
      ? undefined
      : policy.mode === "open"
        ? "open"
        : !matchesAny(policy.allow, c.host)
          ? "not-allowed"
          : undefined,
  }));

  return {
    hosts,
    githubSignIn: credentials?.githubSignIn ?? false,
    signIn,
    load,
    async setToken(host: string, token: string) {
      setCredentials(await git.setToken(host.trim(), token));
    },
    async remove(host: string) {
      await git.removeToken(host);
      await load();
    },
    /** Adds the host to the allow list, so its requests pass through the Worker (and get the token). */
    async allow(host: string) {
      if (!policy) return;
      setPolicy(await network.update({ mode: policy.mode, allow: [...policy.allow, host] }));
    },
    /** Starts GitHub's device sign-in and asks, at GitHub's pace, until it ends; resolves with how. */
    async signInWithGitHub(): Promise<"done" | "expired" | "denied"> {
      const code = await git.startGitHubSignIn();
      setSignIn(code);
      try {
        for (let wait = code.interval; ; ) {
          await new Promise((resolve) => {
            polling.current = setTimeout(resolve, wait * 1000);
          });
          const answer = await git.pollGitHubSignIn();
          if (answer.state !== "pending") {
            await load();
            return answer.state;
          }
          wait = answer.interval;
        }
      } finally {
        setSignIn(undefined);
      }
    },
  };
}

export type GitCredentialsState = ReturnType<typeof useGitCredentials>;
