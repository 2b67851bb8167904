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

export interface GitCredentialsView {
  hosts: readonly HostCredential[];
  /** Whether the deployment offers GitHub's device sign-in. */
  githubSignIn: boolean;
  /** GitHub's code for the person to enter, while a device sign-in runs. */
  signIn?: GitHubDeviceCode;
}

type CredentialsApi = Pick<
  GitApi,
  "credentials" | "setToken" | "removeToken" | "startGitHubSignIn" | "pollGitHubSignIn"
>;

/**
 * The tokens for git hosts (kept as the workspace's network secrets, never in
 * the container), what the network policy does with them, and GitHub's
 * device sign-in while it runs. React reads it through
 * `useSyncExternalStore(model.subscribe, model.getSnapshot)`.
 */
export class GitCredentialsModel {
  private credentials: GitCredentials | undefined;
  private policy: NetworkSettings | undefined;
  private signIn: GitHubDeviceCode | undefined;
  private view: GitCredentialsView = { hosts: [], githubSignIn: false };
  private readonly listeners = new Set<() => void>();
  /** Ends the wait between two polls of a device sign-in early (the panel closed). */
  private stopWaiting: (() => void) | undefined;

  constructor(
    private readonly git: CredentialsApi,
    private readonly network: Pick<NetworkApi, "get" | "update">,
  ) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): GitCredentialsView => this.view;

  /** Reads the tokens' hosts and the network policy. */
  async load(): Promise<void> {
    const [credentials, policy] = await Promise.all([this.git.credentials(), this.network.get()]);
    this.credentials = credentials;
    this.policy = policy;
    this.changed();
  }

  async setToken(host: string, token: string): Promise<void> {
    this.credentials = await this.git.setToken(host.trim(), token);
    this.changed();
  }

  async remove(host: string): Promise<void> {
    await this.git.removeToken(host);
    await this.load();
  }

  /** Adds the host to the allow list, so its requests pass through the Worker (and get the token). */
  async allow(host: string): Promise<void> {
    const policy = this.policy;
    if (!policy) return;
    this.policy = await this.network.update({ mode: policy.mode, allow: [...policy.allow, host] });
    this.changed();
  }

  /** Starts GitHub's device sign-in and asks, at GitHub's pace, until it ends; resolves with how. */
  async signInWithGitHub(): Promise<"done" | "expired" | "denied"> {
    const code = await this.git.startGitHubSignIn();
    this.signIn = code;
    this.changed();
    try {
      for (let wait = code.interval; ; ) {
        const stopped = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), wait * 1000);
          this.stopWaiting = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        this.stopWaiting = undefined;
        if (stopped) throw new Error("The sign-in with GitHub was stopped.");
        const answer = await this.git.pollGitHubSignIn();
        if (answer.state !== "pending") {
          await this.load();
          return answer.state;
        }
        wait = answer.interval;
      }
    } finally {
      this.signIn = undefined;
      this.changed();
    }
  }

  /** The panel closed: a device sign-in in progress stops asking GitHub. */
  stopSignIn(): void {
    this.stopWaiting?.();
  }

  private changed(): void {
    const policy = this.policy;
    this.view = {
      hosts: (this.credentials?.hosts ?? []).map((c) => ({
        ...c,
        unused: !policy
          ? undefined
          : policy.mode === "open"
            ? "open"
            : !matchesAny(policy.allow, c.host)
              ? "not-allowed"
              : undefined,
      })),
      githubSignIn: this.credentials?.githubSignIn ?? false,
      signIn: this.signIn,
    };
    for (const listener of this.listeners) listener();
  }
}
