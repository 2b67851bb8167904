/**
 * The Workspace Durable Object's side of its network: the policy and the
 * secrets (kept in its storage), what a new container starts with, the
 * verdict on each outbound request the Outbound entrypoint asks about, and
 * the log of those requests.
 */
import { ErrorCode } from "../../protocol/errors";
import {
  DEFAULT_POLICY,
  type EgressLog as EgressLogView,
  matchesAny,
  type NetworkMode,
  type NetworkPolicy,
  type NetworkSettings,
  needsRestart,
  type SecretInfo,
  type SecretInput,
} from "../../protocol/network";
import { AppError } from "../errors";
import { EgressLog } from "./egress-log";

const POLICY_KEY = "network:policy";
const SECRETS_KEY = "network:secrets";
/** The mode the current (or last) container started with: a restarted object must know it. */
const CONTAINER_MODE_KEY = "network:container-mode";

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
  running: () => boolean;
  /** False when the deployment keeps every workspace off the Internet (SANDBOX_INTERNET=false). */
  openAvailable: boolean;
  /** Saves, stops and starts the container again (a mode change that needs a new container). */
  restart: () => Promise<void>;
  /** The workspace's id, named in the answers to blocked requests. */
  workspaceId: () => string | undefined;
}

/** What the Outbound entrypoint asks about one request. */
export interface EgressRequest {
  method: string;
  url: string;
}

/** The answer: forward it (with these headers set, and report how it ended under `id`), or refuse it. */
export type EgressVerdict =
  | { allow: true; id: number; headers: { name: string; value: string }[] }
  | { allow: false; host: string; message: string };

export class WorkspaceNetwork {
  private policy: NetworkPolicy = { ...DEFAULT_POLICY };
  private secrets = new Map<string, StoredSecret>();
  private containerMode: NetworkMode | null = null;
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
    return this.deps.running() && this.containerMode !== null && this.containerMode !== "open";
  }

  settings(): NetworkSettings {
    return {
      mode: this.policy.mode,
      allow: [...this.policy.allow],
      secrets: this.secretList(),
      containerMode: this.deps.running() ? this.containerMode : null,
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
    const mustRestart = this.deps.running() && needsRestart(this.containerMode, next.mode);
    if (mustRestart && !restart) {
      throw new AppError(
        ErrorCode.RESTART_REQUIRED,
        `Switching from ${this.containerMode} to ${next.mode} takes a new container: the Internet setting is fixed when a container starts. Send it again with "restart": true to save the workspace, stop it and start it again (files are kept; running programs stop).`,
      );
    }
    this.policy = { mode: next.mode, allow: [...next.allow] };
    await this.deps.storage.put(POLICY_KEY, this.policy);
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
    return { name, hosts: [...stored.hosts], header: stored.header, updatedAt: stored.updatedAt };
  }

  async deleteSecret(name: string): Promise<boolean> {
    if (!this.secrets.delete(name)) return false;
    await this.saveSecrets();
    return true;
  }

  private saveSecrets(): Promise<void> {
    return this.deps.storage.put(SECRETS_KEY, Object.fromEntries(this.secrets));
  }

  /**
   * The policy in force now, for one request the container made. Blocked
   * and allowed requests go to the log; in `open` (a local engine may still
   * hand requests over, see the README) they pass untouched and unlogged.
   */
  verdict(request: EgressRequest): EgressVerdict {
    const url = new URL(request.url);
    const scheme = url.protocol === "https:" ? "https" : "http";
    const host = url.hostname.toLowerCase().replace(/\.$/, "");
    const mode = this.mode;
    if (mode === "open") return { allow: true, id: 0, headers: [] };
    const entry = {
      at: new Date().toISOString(),
      method: request.method,
      scheme,
      host,
      path: url.pathname.slice(0, 200),
      secrets: [] as string[],
    } as const;
    const refusal = this.refusal(mode, host, url.port);
    if (refusal) {
      this.log.add({ ...entry, verdict: "blocked", status: 403 });
      return { allow: false, host, message: refusal };
    }
    const headers: { name: string; value: string }[] = [];
    const names: string[] = [];
    // Secrets travel only encrypted: never in a plain HTTP request.
    if (scheme === "https") {
      for (const [name, secret] of this.secrets) {
        if (matchesAny(secret.hosts, host)) {
          headers.push({ name: secret.header, value: secret.value });
          names.push(name);
        }
      }
    }
    const id = this.log.add({ ...entry, secrets: names, verdict: "allowed", status: null });
    return { allow: true, id, headers };
  }

  private refusal(mode: NetworkMode, host: string, port: string): string | undefined {
    const id = this.deps.workspaceId();
    const api = id ? `PUT /api/workspaces/${id}/network` : "PUT /api/workspaces/{id}/network";
    if (mode === "off") {
      return `Blocked by the IDE: this workspace's network is off, so nothing leaves it (${host} included). To let ${host} through, open the Network panel, choose "Allow list" and add ${host} (or ${api} with {"mode":"allowlist","allow":["${host}"]}).`;
    }
    if (port !== "") {
      return `Blocked by the IDE: requests leave this workspace on ports 80 and 443 only, not ${host}:${port}.`;
    }
    if (!matchesAny(this.policy.allow, host)) {
      return `Blocked by the IDE: ${host} is not on this workspace's allow list. To allow it, click Allow next to it in the Network panel, or add "${host}" to "allow" with ${api}.`;
    }
    return undefined;
  }

  /** How an allowed request ended. */
  settle(id: number, outcome: { status: number | null; error?: string; ms: number }): void {
    if (id > 0) this.log.settle(id, outcome);
  }

  logSince(after: number): EgressLogView {
    return { entries: this.log.since(after), intercepting: this.intercepting };
  }
}
