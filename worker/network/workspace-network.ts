/**
 * The Workspace Durable Object's side of its network: the policy and the
 * secrets (kept in its storage), what a new container starts with, the rules
 * the Outbound entrypoint applies (versioned: a change gets a new version and
 * the intercepts are registered again with it), and the log of requests.
 */
import { ErrorCode } from "../../protocol/errors";
import {
  DEFAULT_POLICY,
  type EgressLogEntry,
  type EgressLog as EgressLogView,
  type NetworkMode,
  type NetworkPolicy,
  type NetworkSettings,
  needsRestart,
  type SecretInfo,
  type SecretInput,
} from "../../protocol/network";
import { AppError } from "../errors";
import { EgressLog } from "./egress-log";
import type { EgressRules } from "./egress-rules";

const POLICY_KEY = "network:policy";
const SECRETS_KEY = "network:secrets";
/** The mode the current (or last) container started with: a restarted object must know it. */
const CONTAINER_MODE_KEY = "network:container-mode";
const VERSION_KEY = "network:version";

interface StoredSecret extends Required<SecretInput> {
  updatedAt: string;
}

export interface NetworkStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
}

export interface NetworkDeps {
  storage: NetworkStorage;
  /** Whether a container runs now. */
  hasContainer: () => boolean;
  /** False when the deployment keeps every workspace off the Internet (SANDBOX_INTERNET=false). */
  openAvailable: boolean;
  /** Saves, stops and starts the container again (a mode change that needs a new container). */
  restart: () => Promise<void>;
  /** The workspace's id, named in the answers to blocked requests. */
  workspaceId: () => string | undefined;
  /** Registers the intercepts again with the new version, when a container runs with them. */
  changed: () => Promise<void>;
}

export class WorkspaceNetwork {
  private policy: NetworkPolicy = { ...DEFAULT_POLICY };
  private secrets = new Map<string, StoredSecret>();
  private containerMode: NetworkMode | null = null;
  private rulesVersion = 0;
  readonly log = new EgressLog();

  constructor(private readonly deps: NetworkDeps) {}

  /**
   * Reads the stored policy. A workspace made before policies existed has
   * none and keeps what it had: the Internet, unless the deployment turned it
   * off (then nothing leaves).
   */
  async load(): Promise<void> {
    const { storage } = this.deps;
    const legacy: NetworkPolicy = { mode: this.deps.openAvailable ? "open" : "off", allow: [...DEFAULT_POLICY.allow] };
    this.policy = (await storage.get<NetworkPolicy>(POLICY_KEY)) ?? legacy;
    this.secrets = new Map(Object.entries((await storage.get<Record<string, StoredSecret>>(SECRETS_KEY)) ?? {}));
    this.containerMode = (await storage.get<NetworkMode>(CONTAINER_MODE_KEY)) ?? null;
    this.rulesVersion = (await storage.get<number>(VERSION_KEY)) ?? 0;
  }

  /** The version of the rules: the intercepts carry it, so the entrypoint knows when they changed. */
  get version(): number {
    return this.rulesVersion;
  }

  /** After a change of the policy or the secrets: a new version, in force for the next request. */
  private async bump(): Promise<void> {
    this.rulesVersion++;
    await this.deps.storage.put(VERSION_KEY, this.rulesVersion);
    await this.deps.changed();
  }

  /** What the Outbound entrypoint applies, secrets included (they never leave the Worker). */
  rules(): EgressRules {
    return {
      version: this.rulesVersion,
      mode: this.mode,
      allow: [...this.policy.allow],
      secrets: [...this.secrets].map(([name, s]) => ({ name, header: s.header, value: s.value, hosts: [...s.hosts] })),
      workspaceId: this.deps.workspaceId(),
    };
  }

  /** A new workspace: the default policy (allowlist, the registries), unless it has one. */
  async initialize(): Promise<void> {
    if (await this.deps.storage.get(POLICY_KEY)) return;
    this.policy = { ...DEFAULT_POLICY, allow: [...DEFAULT_POLICY.allow] };
    await this.deps.storage.put(POLICY_KEY, this.policy);
  }

  /** The mode in force: `open` is `off` where the deployment forbids the Internet. */
  private get mode(): NetworkMode {
    return this.policy.mode === "open" && !this.deps.openAvailable ? "off" : this.policy.mode;
  }

  /** What the next container starts with; called once per start. */
  startWith(): { enableInternet: boolean; intercept: boolean } {
    const mode = this.mode;
    this.containerMode = mode;
    void this.deps.storage.put(CONTAINER_MODE_KEY, mode);
    return { enableInternet: mode === "open", intercept: mode !== "open" };
  }

  /** Whether the running container's HTTP and HTTPS go through the Worker. */
  get intercepting(): boolean {
    return this.deps.hasContainer() && this.containerMode !== null && this.containerMode !== "open";
  }

  settings(): NetworkSettings {
    return {
      mode: this.policy.mode,
      allow: [...this.policy.allow],
      secrets: this.secretList(),
      containerMode: this.deps.hasContainer() ? this.containerMode : null,
      openAvailable: this.deps.openAvailable,
    };
  }

  /**
   * A new policy. The allow list and a change between `allowlist` and `off`
   * apply to the next request. A change to or from `open` on a running
   * container takes a new one: refused unless `restart`, then saved and
   * restarted (files kept).
   */
  async update(next: NetworkPolicy, restart: boolean): Promise<NetworkSettings> {
    if (next.mode === "open" && !this.deps.openAvailable) {
      throw new AppError(
        ErrorCode.INTERNET_DISABLED,
        'This deployment keeps workspaces off the Internet (SANDBOX_INTERNET is "false"): use allowlist or off.',
      );
    }
    const mustRestart = this.deps.hasContainer() && needsRestart(this.containerMode, next.mode);
    if (mustRestart && !restart) {
      throw new AppError(
        ErrorCode.RESTART_REQUIRED,
        `Switching from ${this.containerMode} to ${next.mode} takes a new container: the Internet setting is fixed when a container starts. Send it again with "restart": true to save the workspace, stop it and start it again (files are kept; running programs stop).`,
      );
    }
    this.policy = { mode: next.mode, allow: [...next.allow] };
    await this.deps.storage.put(POLICY_KEY, this.policy);
    await this.bump();
    if (mustRestart) await this.deps.restart();
    return { ...this.settings(), ...(mustRestart ? { restarted: true } : {}) };
  }

  private secretList(): SecretInfo[] {
    return [...this.secrets.entries()]
      .map(([name, s]) => ({ name, hosts: [...s.hosts], header: s.header, updatedAt: s.updatedAt }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  secretInfos(): SecretInfo[] {
    return this.secretList();
  }

  async putSecret(name: string, input: Required<SecretInput>, maxSecrets: number): Promise<SecretInfo> {
    if (!this.secrets.has(name) && this.secrets.size >= maxSecrets) {
      throw new AppError(ErrorCode.INVALID_SECRET, `A workspace has at most ${maxSecrets} secrets: delete one first.`);
    }
    const stored: StoredSecret = { ...input, hosts: [...input.hosts], updatedAt: new Date().toISOString() };
    this.secrets.set(name, stored);
    await this.saveSecrets();
    await this.bump();
    return { name, hosts: [...stored.hosts], header: stored.header, updatedAt: stored.updatedAt };
  }

  async deleteSecret(name: string): Promise<boolean> {
    if (!this.secrets.delete(name)) return false;
    await this.saveSecrets();
    await this.bump();
    return true;
  }

  private saveSecrets(): Promise<void> {
    return this.deps.storage.put(SECRETS_KEY, Object.fromEntries(this.secrets));
  }

  /** One request the Outbound entrypoint decided (and, when allowed, how it ended). */
  record(entry: Omit<EgressLogEntry, "id">): void {
    this.log.add(entry);
  }

  logSince(after: number): EgressLogView {
    return { entries: this.log.since(after), intercepting: this.intercepting };
  }
}
